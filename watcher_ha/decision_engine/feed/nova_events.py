"""Nova versioned notifications as changes to the cluster state.

Every instance notification carries the whole instance (an InstancePayload
or one of its kinds), so a handler rebuilds the element from the payload
instead of patching one field; an event older than what the model holds
(``stamp``: the envelope's timestamp) changes nothing, so duplicates and
out-of-order deliveries are harmless. A deleted server leaves a
tombstone that no later event brings back: a delete wins whatever the
stamps say, since each Nova service stamps with its own clock and a uuid
is never reused. A soft-deleted one comes back only with a newer event
(a restore).

Where a server runs is the one field some events get wrong, as captured
from a real Nova: during a live migration every event but
``live_migration_post_dest.end`` still names the source, and the source's
``live_migration_post.end`` comes last; during an evacuation the events
name the failed host while the destination compute publishes them, and
Nova moves the server only when the rebuild ends. The ``PLACEMENT`` rule
of each event type says which to believe.
"""

import dataclasses
import datetime

from oslo_log import log

from watcher_ha.decision_engine.feed import event_rules
from watcher_ha.decision_engine.model import elements

LOG = log.getLogger(__name__)

# Where the server runs, by event type.
PAYLOAD = 'payload'        # the payload's host
KEEP = 'keep'              # unchanged: the payload names the source of a
                           # live migration in progress
PUBLISHER = 'publisher'    # the nova-compute that published it (rebuild,
                           # which an evacuation is)

_INSTANCE_EVENTS = {
    PAYLOAD: [
        'instance.create.start', 'instance.create.end', 'instance.update',
        'instance.delete.start', 'instance.delete.end',
        'instance.soft_delete.start', 'instance.soft_delete.end',
        'instance.restore.start', 'instance.restore.end',
        'instance.live_migration_post_dest.end',
        'instance.live_migration_rollback.start',
        'instance.live_migration_rollback.end',
        'instance.live_migration_rollback_dest.start',
        'instance.live_migration_rollback_dest.end',
        'instance.live_migration_abort.start',
        'instance.live_migration_abort.end',
        'instance.live_migration_force_complete.start',
        'instance.live_migration_force_complete.end',
        'instance.resize_prep.start', 'instance.resize_prep.end',
        'instance.resize.start', 'instance.resize.end',
        'instance.resize_finish.start', 'instance.resize_finish.end',
        'instance.resize_confirm.start', 'instance.resize_confirm.end',
        'instance.resize_revert.start', 'instance.resize_revert.end',
        'instance.power_on.start', 'instance.power_on.end',
        'instance.power_off.start', 'instance.power_off.end',
        'instance.pause.start', 'instance.pause.end',
        'instance.unpause.start', 'instance.unpause.end',
        'instance.suspend.start', 'instance.suspend.end',
        'instance.resume.start', 'instance.resume.end',
        'instance.shutdown.start', 'instance.shutdown.end',
        'instance.reboot.start', 'instance.reboot.end',
        'instance.shelve.start', 'instance.shelve.end',
        'instance.shelve_offload.start', 'instance.shelve_offload.end',
        'instance.unshelve.start', 'instance.unshelve.end',
        'instance.rescue.start', 'instance.rescue.end',
        'instance.unrescue.start', 'instance.unrescue.end',
        'instance.lock', 'instance.unlock',
        'instance.snapshot.start', 'instance.snapshot.end',
        'instance.interface_attach.start', 'instance.interface_attach.end',
        'instance.interface_detach.start', 'instance.interface_detach.end',
        'instance.volume_attach.start', 'instance.volume_attach.end',
        'instance.volume_detach.start', 'instance.volume_detach.end',
        'instance.volume_swap.start', 'instance.volume_swap.end',
        'instance.trigger_crash_dump.start',
        'instance.trigger_crash_dump.end',
        'instance.share_attach.start', 'instance.share_attach.end',
        'instance.share_detach.start', 'instance.share_detach.end',
        'instance.update_tags',
    ],
    KEEP: [
        'instance.live_migration_pre.start',
        'instance.live_migration_pre.end',
        'instance.live_migration_post.start',
        'instance.live_migration_post.end',
        'instance.live_migration_post_dest.start',
        'instance.evacuate', 'instance.rebuild_scheduled',
        # Nova moves the server to the destination once the rebuild is
        # done: until then the API shows it on the failed host (and it
        # stays there if the rebuild never ends).
        'instance.rebuild.start',
    ],
    PUBLISHER: ['instance.rebuild.end'],
}

PLACEMENT = {event: rule for rule, events in _INSTANCE_EVENTS.items()
             for event in events}

SERVICE_EVENTS = ('service.create', 'service.update', 'service.delete')
AGGREGATE_EVENTS = ('aggregate.add_host.end', 'aggregate.remove_host.end',
                    'aggregate.update_metadata.end',
                    'aggregate.update_prop.end', 'aggregate.delete.end')

COMPUTE_BINARY = 'nova-compute'
# Seconds without a report after which Nova counts a service down (its
# [DEFAULT] service_down_time).
SERVICE_DOWN_TIME = 60


@dataclasses.dataclass(frozen=True)
class Event:
    """One notification as received: what happened, when, from whom."""
    event_type: str
    publisher_id: str
    payload: dict
    stamp: datetime.datetime

    @classmethod
    def from_message(cls, publisher_id, event_type, payload, metadata):
        return cls(event_type, publisher_id or '', payload,
                   parse_time(metadata.get('timestamp')))

    @property
    def data(self):
        return self.payload.get('nova_object.data', {})

    @property
    def publishing_compute(self):
        service, _, host = self.publisher_id.partition(':')
        return host if service == COMPUTE_BINARY and host else None


def parse_time(text):
    """Nova's envelope timestamp ('2026-11-22 06:21:07.897434', UTC), as
    a naive UTC datetime; EPOCH when missing or unreadable."""
    if not text:
        return elements.EPOCH
    try:
        # fromisoformat, not strptime: this runs for every notification
        # and is some twenty times faster.
        stamp = datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return elements.EPOCH
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return stamp


def handles(event_type):
    return (event_type in PLACEMENT or event_type in SERVICE_EVENTS
            or event_type in AGGREGATE_EVENTS)


def apply(changes, event):
    """Apply ``event`` to ``changes`` (a state.Changes); returns the
    hostnames it referenced that the model does not know."""
    return event_rules.dispatch(_HANDLERS, changes, event)


def _newer(event, element):
    return element is None or event.stamp >= element.stamp


def _instance(changes, event):
    data = event.data
    uuid = data.get('uuid')
    if not uuid:
        return set()
    current = changes.instance(uuid)
    if event_rules.buried(changes, uuid, event):
        return set()
    if (event.event_type == 'instance.delete.end'
            or data.get('state') == 'deleted'):
        # Deleted for good: whatever the stamps say (each Nova service
        # stamps with its own clock), nothing before or after it counts.
        changes.remove_instance(uuid, event.stamp, final=True)
        return set()
    rule = PLACEMENT[event.event_type]
    if not _newer(event, current):
        return _late_placement(changes, event, rule, current)
    if data.get('state') in elements.GONE_STATES:
        changes.remove_instance(uuid, event.stamp)
        return set()
    if rule == KEEP and current is not None:
        host, placed = current.host, current.placed_at
    elif rule == KEEP:
        # The payload's host is only a guess here (the source of a live
        # migration maybe): any event that says where the server runs,
        # however old, overrides it.
        host, placed = data.get('host'), elements.EPOCH
    else:
        host, placed = _placement(rule, event), event.stamp
    flavor = (data.get('flavor') or {}).get('nova_object.data', {})
    instance = elements.Instance(
        uuid=uuid,
        name=data.get('display_name') or '',
        state=data.get('state') or 'active',
        host=host,
        vcpus=flavor.get('vcpus', 0),
        memory_mb=flavor.get('memory_mb', 0),
        disk_gb=(flavor.get('root_gb', 0) + flavor.get('ephemeral_gb', 0)),
        project_id=data.get('tenant_id'),
        metadata=elements.frozen_mapping(data.get('metadata')),
        locked=bool(data.get('locked')),
        # Notifications do not carry the AZ a server was pinned to at boot;
        # keep what the last resync read.
        pinned_availability_zone=(current.pinned_availability_zone
                                  if current else None),
        flavor_extra_specs=elements.frozen_mapping(
            flavor.get('extra_specs')),
        created_at=parse_created(data.get('created_at')),
        stamp=event.stamp,
        placed_stamp=None if placed == event.stamp else placed)
    if current is not None and current.same_flavor(instance):
        # Notifications do not carry Placement's allocation: what the
        # last read found holds while the flavor does.
        instance = dataclasses.replace(instance,
                                       allocations=current.allocations)
    changes.put_instance(instance)
    return _unknown(changes, host)


def parse_created(text):
    """When Nova created a server, as its API (``created``) or a
    notification (``created_at``) writes it ('2026-11-22T06:21:07Z'):
    naive UTC, None when missing or unreadable."""
    created = parse_time(text)
    return None if created == elements.EPOCH else created


def _placement(rule, event):
    """Where ``event`` says the server runs (for a rule other than
    KEEP)."""
    if rule == PUBLISHER and event.publishing_compute:
        return event.publishing_compute
    return event.data.get('host')


def _late_placement(changes, event, rule, current):
    """An event older than the server's element: it changes nothing,
    unless it says where the server runs and the newer events since did
    not (a live migration's ``post_dest.end`` that arrives after the
    source's ``post.end``)."""
    if rule == KEEP or event.stamp < current.placed_at:
        return set()
    host = _placement(rule, event)
    changes.put_instance(dataclasses.replace(
        current, host=host, placed_stamp=event.stamp))
    return _unknown(changes, host)


def _unknown(changes, host):
    """{host} if the model has no such node (to fetch it from Nova)."""
    if host is not None and not changes.has_node(host):
        return {host}
    return set()


def _service(changes, event):
    data = event.data
    if data.get('binary') != COMPUTE_BINARY or not data.get('host'):
        return set()
    hostname = data['host']
    current = changes.node(hostname)
    if not _newer(event, current):
        return set()
    if event.event_type == 'service.delete':
        changes.remove_node(hostname)
        return set()
    base = current or elements.ComputeNode(hostname=hostname)
    changes.put_node(dataclasses.replace(
        base,
        state='down' if (data.get('forced_down')
                         or _silent(event, data)) else 'up',
        status='disabled' if data.get('disabled') else 'enabled',
        disabled_reason=data.get('disabled_reason'),
        availability_zone=(data.get('availability_zone')
                           or base.availability_zone),
        stamp=event.stamp))
    # A new compute: its capacity comes from Nova.
    return set() if current is not None else {hostname}


def _silent(event, data):
    """Whether the service had stopped reporting when ``event`` was
    sent, as Nova judges it: its last report (``last_seen_up``) older
    than SERVICE_DOWN_TIME. A dead host whose service an operator
    disables or enables must stay down."""
    seen = parse_time(data.get('last_seen_up'))
    return (seen != elements.EPOCH
            and (event.stamp - seen).total_seconds() > SERVICE_DOWN_TIME)


def _aggregate(changes, event):
    """An aggregate's members and zone, as the event tells them; returns
    the hosts to read from Nova: members the model lacks, and nodes
    whose zone came from an aggregate they left (or that dropped its
    zone), whose zone is now Nova's default, which only Nova knows."""
    data = event.data
    name = data.get('name')
    known = changes.aggregate(name)
    if known is not None and event.stamp < known.stamp:
        return set()
    renamed_from = (changes.aggregate_named_by(data['uuid'])
                    if data.get('uuid') else None)
    if renamed_from == name:
        renamed_from = None
    deleted = event.event_type == 'aggregate.delete.end'
    zone = None if deleted else (data.get('metadata') or {}).get(
        'availability_zone')
    changes.put_aggregate(elements.Aggregate(
        name=name, uuid=data.get('uuid'), id=data.get('id'),
        availability_zone=zone, stamp=event.stamp))
    if renamed_from is not None:
        known = changes.aggregate(renamed_from)
        changes.remove_aggregate(renamed_from)
    members = set(data.get('hosts') or ())
    unknown = set()
    for hostname, node in changes.all_nodes().items():
        was_inside = bool({name, renamed_from} & node.aggregates)
        inside = hostname in members and not deleted
        aggregates = ((node.aggregates - {renamed_from}) | {name} if inside
                      else node.aggregates - {name, renamed_from})
        node_zone = _zone_among(
            changes, aggregates, node.availability_zone,
            left=known.availability_zone if was_inside and known else None)
        if node_zone is None and node.availability_zone is not None:
            unknown.add(hostname)
        if (aggregates, node_zone) != (node.aggregates,
                                       node.availability_zone):
            changes.put_node(dataclasses.replace(
                node, aggregates=frozenset(aggregates),
                availability_zone=node_zone))
    return unknown | {host for host in members if not changes.has_node(host)}


def _zone_among(changes, aggregates, zone, left):
    """A node's zone, given its aggregates: a zone one of them sets;
    else, if its ``zone`` is the one an aggregate it was in set
    (``left``), unknown (None); else ``zone``, which Nova gave it."""
    zones = sorted(found.availability_zone for found in (
        changes.aggregate(a) for a in aggregates)
        if found is not None and found.availability_zone)
    if zones:
        return zones[0]
    if left is not None and zone == left:
        return None
    return zone


# Which handler applies which event types.
_HANDLERS = ((PLACEMENT, _instance), (SERVICE_EVENTS, _service),
             (AGGREGATE_EVENTS, _aggregate))
