"""Cinder's notifications for what the simulated Block Storage does.

Cinder's are unversioned: a plain payload (the volume's usage, or a
pool's capacity) under an event type such as ``volume.create.end``,
published by ``volume.<host@backend>`` (its cinder-volume) or
``capacity.<host>`` (its scheduler). They go out through oslo.messaging,
driver messagingv2, topic ``notifications``, on exchange ``openstack``
(oslo.messaging's default control_exchange, which Cinder keeps).
"""

import datetime

from watcher_ha.simulator import notifications

CINDER_EXCHANGE = 'openstack'
TOPIC = 'notifications'


def api_time(value):
    """A time as Cinder's API shows it (no zone, microseconds)."""
    return None if value is None else value.strftime('%Y-%m-%dT%H:%M:%S.%f')


def note_time(value):
    """A time as Cinder's notifications carry it (aware isoformat)."""
    if value is None:
        return None
    return value.replace(tzinfo=datetime.timezone.utc).isoformat()


def attachment_row(attachment):
    """A volume_attachment row, as _usage_from_volume lists them."""
    return {'id': attachment.id, 'volume_id': attachment.volume_id,
            'instance_uuid': attachment.server_uuid,
            'attached_host': attachment.attached_host,
            'mountpoint': attachment.mountpoint,
            'attach_time': note_time(attachment.attach_time),
            'detach_time': None, 'attach_status': attachment.status,
            'attach_mode': attachment.mode, 'connection_info': None,
            'connector': attachment.connector, 'deleted': False}


def volume_payload(storage, volume, **extra):
    """Cinder's usage payload of ``volume`` (its _usage_from_volume);
    ``extra`` overrides fields, as Cinder's extra_usage_info does."""
    created = volume.created_at
    payload = {
        'tenant_id': volume.project_id, 'host': volume.pool,
        'user_id': volume.user_id,
        'availability_zone': volume.availability_zone,
        'volume_id': volume.id, 'volume_type': volume.type_id,
        'display_name': volume.name,
        'launched_at': note_time(volume.launched_at or created),
        'created_at': note_time(created),
        'status': volume.status, 'snapshot_id': None, 'size': volume.size,
        'replication_status': None, 'replication_extended_status': None,
        'replication_driver_data': None,
        'metadata': [{'key': key, 'value': value, 'deleted': False}
                     for key, value in sorted(volume.metadata.items())],
        'volume_attachment': [attachment_row(a)
                              for a in volume.attachments],
    }
    if volume.bootable:
        payload['glance_metadata'] = [
            {'key': 'image_id', 'value': volume.metadata.get(
                'image_id', '00000000-0000-4000-8000-000000000000')}]
    payload.update(extra)
    return payload


def capacity_payload(storage, pool):
    """Cinder's capacity payload of ``pool`` (its _usage_from_capacity)."""
    capabilities = storage.capabilities(pool)
    return {'name_to_id': pool.full_name,
            'total': capabilities['total_capacity_gb'],
            'free': capabilities['free_capacity_gb'],
            'allocated': capabilities['allocated_capacity_gb'],
            'provisioned': capabilities['provisioned_capacity_gb'],
            'virtual_free': float(storage.virtual_free(pool)),
            'reported_at': note_time(storage.cloud.clock.now())}


def cinder_transport(transport_url, config_files=()):
    """A notification transport whose default exchange is Cinder's."""
    return notifications.transport(transport_url, CINDER_EXCHANGE,
                                   config_files)


class NoEvents:
    """What the storage tells when nobody listens."""

    def __init__(self):
        self.sent = 0

    def emit(self, event_type, publisher, payload):
        pass


class Notifier(notifications.Sender):
    """Sends Cinder's notifications, unless the fault injection drops or
    delays them (the same faults as Nova's)."""

    def __init__(self, transport, faults=None, clock=None):
        super().__init__(transport, TOPIC, faults, clock)

    def emit(self, event_type, publisher, payload):
        self.send(event_type, publisher, payload)
