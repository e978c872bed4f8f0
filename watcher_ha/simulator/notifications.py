"""Nova versioned notifications for what the simulated cloud does.

Payloads follow Nova's wire format (``nova_object.name``, ``.namespace``,
``.version``, ``.data``) at the versions a current Nova (34) sends: the
InstancePayload fields, plus those of each event's payload class. They
go out on the configured transport, exchange ``nova``, topic
``versioned_notifications``, through oslo.messaging as Nova sends them.
"""

import uuid as uuidlib

import oslo_messaging
from oslo_config import cfg
from oslo_log import log

from watcher_ha.simulator import clock as clock_mod

LOG = log.getLogger(__name__)

NOVA_EXCHANGE = 'nova'
TOPIC = 'versioned_notifications'

# Nova's power states, as notifications spell them.
POWER_STATES = {0: 'pending', 1: 'running', 3: 'paused', 4: 'shutdown',
                6: 'crashed', 7: 'suspended'}

# event type -> (payload class, version, extra fields)
_ACTION = ('InstanceActionPayload', '1.9', ('fault',))
_REBUILD = ('InstanceActionRebuildPayload', '1.10',
            ('fault', 'trusted_image_certificates'))
PAYLOAD_CLASSES = {
    'instance.update': ('InstanceUpdatePayload', '2.1',
                        ('audit_period', 'old_display_name', 'state_update',
                         'tags')),
    'instance.create.start': ('InstanceCreatePayload', '1.13',
                              ('fault', 'instance_name', 'keypairs', 'tags',
                               'trusted_image_certificates')),
    'instance.resize_prep.start': ('InstanceActionResizePrepPayload', '1.4',
                                   ('fault', 'new_flavor')),
    'instance.rescue.start': ('InstanceActionRescuePayload', '1.4',
                              ('fault', 'rescue_image_ref')),
    'instance.evacuate': _ACTION,
    'instance.rebuild.start': _REBUILD,
    'instance.rebuild_scheduled': _REBUILD,
}
for _event in ('instance.volume_attach.start', 'instance.volume_attach.end',
               'instance.volume_detach.start', 'instance.volume_detach.end'):
    PAYLOAD_CLASSES[_event] = ('InstanceActionVolumePayload', '1.7',
                               ('fault', 'volume_id'))
PAYLOAD_CLASSES['instance.create.end'] = \
    PAYLOAD_CLASSES['instance.create.start']
PAYLOAD_CLASSES['instance.resize_prep.end'] = \
    PAYLOAD_CLASSES['instance.resize_prep.start']
PAYLOAD_CLASSES['instance.rescue.end'] = \
    PAYLOAD_CLASSES['instance.rescue.start']
PAYLOAD_CLASSES['instance.rebuild.end'] = _REBUILD


def _time(value):
    return None if value is None else value.strftime('%Y-%m-%dT%H:%M:%SZ')


def _object(name, version, data):
    return {'nova_object.name': name, 'nova_object.namespace': 'nova',
            'nova_object.version': version, 'nova_object.data': data}


def flavor_payload(flavor):
    return _object('FlavorPayload', '1.4', {
        'description': None, 'disabled': False,
        'ephemeral_gb': flavor.ephemeral, 'extra_specs':
        dict(flavor.extra_specs), 'flavorid': flavor.id, 'is_public': True,
        'memory_mb': flavor.ram, 'name': flavor.name, 'projects': None,
        'root_gb': flavor.disk, 'rxtx_factor': 1.0, 'swap': flavor.swap,
        'vcpu_weight': 0, 'vcpus': flavor.vcpus})


def instance_payload(event_type, server, now, old_state=None,
                     old_task_state=None, new_flavor=None, volume_id=None):
    """The payload Nova sends with ``event_type`` for ``server`` at
    ``now``."""
    name, version, extra = PAYLOAD_CLASSES.get(event_type, _ACTION)
    data = {
        'action_initiator_project': server.tenant_id,
        'action_initiator_user': server.user_id,
        'architecture': None, 'auto_disk_config': 'MANUAL',
        'availability_zone': server.availability_zone,
        'block_devices': [], 'created_at': _time(server.created_at),
        'deleted_at': (_time(server.updated_at)
                       if server.vm_state == 'deleted' else None),
        'display_description': None, 'display_name': server.name,
        'flavor': flavor_payload(server.flavor), 'host': server.host,
        'host_name': server.name, 'image_uuid': server.image_uuid,
        'ip_addresses': [], 'kernel_id': '', 'key_name': server.key_name,
        'launched_at': _time(server.launched_at), 'locked': server.locked,
        'locked_reason': server.locked_reason,
        'metadata': dict(server.metadata), 'node': server.host,
        'os_type': None,
        'power_state': POWER_STATES.get(server.power_state, 'pending'),
        'progress': 0, 'ramdisk_id': '',
        'request_id': 'req-%s' % uuidlib.uuid4(),
        'reservation_id': 'r-%s' % server.uuid[:8], 'shares': None,
        'state': server.vm_state, 'task_state': server.task_state,
        'tenant_id': server.tenant_id,
        'terminated_at': (_time(server.updated_at)
                          if server.vm_state == 'deleted' else None),
        'updated_at': _time(server.updated_at), 'user_id': server.user_id,
        'uuid': server.uuid,
    }
    fields = {
        'fault': None, 'tags': [], 'keypairs': [],
        'trusted_image_certificates': None,
        'instance_name': 'instance-%s' % server.uuid[:8],
        'rescue_image_ref': None, 'old_display_name': None,
        'volume_id': volume_id,
        'new_flavor': flavor_payload(new_flavor or server.flavor),
        'audit_period': _object('AuditPeriodPayload', '1.0', {
            'audit_period_beginning': _time(
                server.created_at.replace(day=1, hour=0, minute=0,
                                          second=0)),
            'audit_period_ending': _time(now)}),
        'state_update': _object('InstanceStateUpdatePayload', '1.0', {
            'new_task_state': server.task_state,
            'old_state': old_state or server.vm_state,
            'old_task_state': old_task_state,
            'state': server.vm_state}),
    }
    data.update({field: fields[field] for field in extra})
    return _object(name, version, data)


def service_payload(host):
    """ServiceStatusPayload of a host's nova-compute service."""
    return _object('ServiceStatusPayload', '1.1', {
        'availability_zone': host.availability_zone,
        'binary': 'nova-compute', 'disabled': host.status == 'disabled',
        'disabled_reason': host.disabled_reason,
        'forced_down': host.forced_down, 'host': host.name,
        'last_seen_up': _time(host.last_seen_up),
        'report_count': host.report_count, 'topic': 'compute',
        'uuid': host.service_id, 'version': 74})


def aggregate_payload(view):
    """AggregatePayload of an aggregate, from its API view."""
    return _object('AggregatePayload', '1.1', {
        key: view[key] for key in ('id', 'uuid', 'name', 'hosts',
                                   'metadata')})


def transport(transport_url, exchange, config_files=()):
    """A notification transport whose default exchange is ``exchange``,
    as a service configured with ``transport_url`` would have, and with
    the messaging options of ``config_files`` (oslo.config files): the
    services that share a RabbitMQ cluster must agree on its queues'
    kind ([oslo_messaging_rabbit] rabbit_quorum_queue), or the first to
    declare an exchange makes it unusable to the others."""
    conf = cfg.ConfigOpts()
    conf([], project='watcher-ha-simulator',
         default_config_files=list(config_files))
    # The first call registers the transport options on ``conf``.
    oslo_messaging.get_notification_transport(
        conf, url=transport_url).cleanup()
    conf.set_override('control_exchange', exchange)
    return oslo_messaging.get_notification_transport(conf, url=transport_url)


def nova_transport(transport_url, config_files=()):
    """A notification transport whose default exchange is Nova's."""
    return transport(transport_url, NOVA_EXCHANGE, config_files)


class Sender:
    """Sends a service's notifications on its topic, unless the fault
    injection says to drop or delay them."""

    def __init__(self, transport, topic, faults=None, clock=None):
        self._notifier = oslo_messaging.Notifier(
            transport, driver='messagingv2', topics=[topic])
        self.faults = faults
        # What a delayed notification waits on, and Nova's payloads are
        # dated by.
        self.clock = clock or clock_mod.REAL
        self.sent = 0

    def send(self, event_type, publisher, payload, priority='info'):
        """``priority``: the notification's level, as oslo.messaging's
        Notifier names its methods (info, error...)."""
        delay = 0
        if self.faults is not None:
            if self.faults.drop_notification():
                LOG.info('Dropped %s (fault injection)', event_type)
                return
            delay = self.faults.notification_delay()
        if delay:
            self.clock.later(delay, self._send, publisher, event_type,
                             payload, priority)
        else:
            self._send(publisher, event_type, payload, priority)

    def _send(self, publisher, event_type, payload, priority='info'):
        notifier = self._notifier.prepare(publisher_id=publisher)
        getattr(notifier, priority)({}, event_type, payload)
        self.sent += 1


class Notifier(Sender):
    """The cloud's event sink: builds each of Nova's payloads and sends
    it."""

    def __init__(self, transport, faults=None, clock=None):
        super().__init__(transport, TOPIC, faults, clock)

    def emit(self, event_type, publisher, server=None, host=None, **extra):
        if event_type.startswith('service.'):
            payload = service_payload(host)
        elif event_type.startswith('aggregate.'):
            payload = aggregate_payload(extra['aggregate'])
        else:
            payload = instance_payload(event_type, server,
                                       self.clock.now(), **extra)
        self.send(event_type, publisher, payload)
