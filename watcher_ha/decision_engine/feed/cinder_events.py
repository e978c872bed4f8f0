"""Cinder's notifications as changes to the storage state.

Cinder sends its legacy (unversioned) notifications: a volume event's
payload is the whole volume as Cinder's database has it (its pool in
``host``, its type as an id, its live attachments), so a handler
rebuilds the volume from it; ``capacity.pool``, sent by the scheduler
each time a pool's allocation changes, carries the pool's capacities. An
event older than what the model holds (``stamp``: the envelope's
timestamp) changes nothing; a deleted volume leaves a tombstone that no
later event brings back (Cinder never reuses a volume's id).

A migration sends no volume event (Cinder's manager has none): only the
pools' capacity.pool show it. So when a pool's allocated capacity is not
what the model's volumes there add up to, the pool is named to be read
again from the API (what ``apply`` returns), which finds where its
volumes went.
"""

import dataclasses

from oslo_log import log

from watcher_ha.decision_engine.feed import event_rules
from watcher_ha.decision_engine.model import storage_elements

LOG = log.getLogger(__name__)

VOLUME_EVENTS = frozenset((
    'volume.create.start', 'volume.create.end',
    'volume.delete.start', 'volume.delete.end',
    'volume.attach.start', 'volume.attach.end',
    'volume.detach.start', 'volume.detach.end',
    'volume.resize.start', 'volume.resize.end',
    'volume.update.start', 'volume.update.end',
    'volume.retype',
    'volume.revert.start', 'volume.revert.end',
    'volume.transfer.accept.start', 'volume.transfer.accept.end',
))
CAPACITY_EVENTS = frozenset(('capacity.pool',))
# The scheduler's failures (priority ERROR): the volume's new state, and
# for a creation what the volume was to be. No volume event follows: a
# volume no backend could take is in error, in no pool.
SCHEDULER_EVENTS = frozenset((
    'scheduler.create_volume', 'scheduler.migrate_volume_to_host',
    'scheduler.retype', 'scheduler.extend_volume',
    'scheduler.manage_existing'))
EVENT_TYPES = VOLUME_EVENTS | CAPACITY_EVENTS | SCHEDULER_EVENTS
# Who sends them: 'volume.<host@backend>' (the volume service),
# 'capacity.<host>' and 'scheduler.<host>' (the scheduler).
PUBLISHER = r'^(volume|capacity|scheduler)\.'

# What ``apply`` names to be read from Cinder: a pool (unknown, or whose
# allocation the model's volumes do not account for) and a volume type
# (an id the model cannot name).
POOL = 'pool'
VOLUME_TYPE = 'volume_type'

ATTACHED = 'attached'


def apply(changes, event):
    """Apply ``event`` to ``changes`` (a storage_state.StorageChanges);
    returns what it named that the model does not know or cannot account
    for: {(POOL, name) or (VOLUME_TYPE, id)}."""
    return event_rules.dispatch(_HANDLERS, changes, event)


def _volume(changes, event):
    data = event.payload
    uuid = data.get('volume_id')
    if not uuid:
        return set()
    if event_rules.buried(changes, uuid, event):
        return set()
    if (event.event_type == 'volume.delete.end'
            or data.get('status') in storage_elements.GONE_STATUSES):
        changes.remove_volume(uuid, event.stamp)
        return set()
    current = changes.volume(uuid)
    if current is not None and event.stamp < current.stamp:
        return set()
    type_id = data.get('volume_type')
    known_type = changes.volume_type(type_id) if type_id else None
    if known_type is not None:
        type_name = known_type.name
    elif current is not None and current.volume_type_id == type_id:
        type_name = current.volume_type
    else:
        type_name = None
    pool = data.get('host')
    changes.put_volume(storage_elements.Volume(
        uuid=uuid,
        name=data.get('display_name') or '',
        size=data.get('size') or 0,
        status=data.get('status') or 'available',
        attachments=attachments(data.get('volume_attachment')),
        project_id=data.get('tenant_id'),
        # Cinder adds glance_metadata only for a bootable volume.
        bootable='glance_metadata' in data,
        multiattach=(current.multiattach if current is not None
                     else False),
        volume_type=type_name,
        volume_type_id=type_id,
        pool=pool,
        availability_zone=data.get('availability_zone'),
        snapshot_id=data.get('snapshot_id'),
        metadata=metadata(data.get('metadata')),
        created_at=data.get('created_at'),
        # Not in the payload: what the last read said.
        migration_status=(current.migration_status if current is not None
                          else None),
        stamp=event.stamp))
    unknown = set()
    if type_id and type_name is None:
        unknown.add((VOLUME_TYPE, type_id))
    if pool and changes.pool(pool) is None:
        unknown.add((POOL, pool))
    return unknown


def attachments(rows):
    """((server id, attachment id), ...) of the attached ones among a
    payload's attachment rows (Cinder's API shows only those), sorted."""
    return tuple(sorted(
        (row.get('instance_uuid'), row.get('id')) for row in rows or ()
        if row.get('attach_status', ATTACHED) == ATTACHED))


def metadata(value):
    """A volume's metadata as a sorted tuple of pairs: the payload gives
    Cinder's rows ([{'key': k, 'value': v, ...}]), the API a mapping."""
    if isinstance(value, dict):
        pairs = value.items()
    else:
        pairs = ((row.get('key'), row.get('value')) for row in value or ()
                 if isinstance(row, dict) and not row.get('deleted'))
    return tuple(sorted(pairs))


def _capacity(changes, event):
    data = event.payload
    name = data.get('name_to_id')
    if not name or '#' not in name:
        return set()
    current = changes.pool(name)
    if current is not None and event.stamp < current.stamp:
        return set()
    capacity = storage_elements.capacity
    base = current or storage_elements.Pool(name=name)
    pool = dataclasses.replace(
        base,
        total_capacity_gb=capacity(data.get('total')),
        free_capacity_gb=capacity(data.get('free')),
        allocated_capacity_gb=capacity(data.get('allocated')),
        provisioned_capacity_gb=capacity(data.get('provisioned')),
        virtual_free=capacity(data.get('virtual_free')),
        stamp=event.stamp)
    changes.put_pool(pool)
    if current is None or not accounted_for(changes, pool):
        return {(POOL, name)}
    return set()


def accounted_for(changes, pool):
    """Whether the volumes the model has in ``pool`` add up to its
    allocated capacity (unknown: assumed so)."""
    if pool.allocated_capacity_gb is None:
        return True
    return changes.allocated(pool.name) == pool.allocated_capacity_gb


def _scheduler_failure(changes, event):
    """A request the scheduler could not place: the volume takes the
    state it set (a creation's volume, which no volume event describes,
    is made from the request's properties)."""
    data = event.payload
    uuid = data.get('volume_id')
    state = data.get('state') or {}
    if not uuid or not state.get('status'):
        return set()
    if event_rules.buried(changes, uuid, event):
        return set()
    current = changes.volume(uuid)
    if current is not None and event.stamp < current.stamp:
        return set()
    if current is None:
        if event.event_type != 'scheduler.create_volume':
            return set()
        properties = data.get('volume_properties') or {}
        type_id = properties.get('volume_type_id')
        known_type = changes.volume_type(type_id) if type_id else None
        current = storage_elements.Volume(
            uuid=uuid, name=properties.get('display_name') or '',
            size=properties.get('size') or 0,
            project_id=properties.get('project_id'),
            multiattach=bool(properties.get('multiattach')),
            volume_type=known_type.name if known_type else None,
            volume_type_id=type_id,
            availability_zone=properties.get('availability_zone'),
            metadata=metadata(properties.get('metadata')))
    changes.put_volume(dataclasses.replace(
        current, status=state['status'],
        migration_status=state.get('migration_status',
                                   current.migration_status),
        stamp=event.stamp))
    if current.volume_type_id and current.volume_type is None:
        return {(VOLUME_TYPE, current.volume_type_id)}
    return set()


# Which handler applies which event types.
_HANDLERS = ((VOLUME_EVENTS, _volume), (CAPACITY_EVENTS, _capacity),
             (SCHEDULER_EVENTS, _scheduler_failure))
