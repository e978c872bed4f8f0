"""A simulated Cinder's volume migrations (``os-migrate_volume``) and
retypes (``os-retype``), timed as Cinder runs them, and the record of
every one asked for (``BlockStorage.moves``: tests count them).

A migration: migration_status ``starting`` (the API), ``migrating`` once
the scheduler handed it to the source's cinder-volume (the volume's size
then counts on the destination pool too), the copy (size times
volume_migration_seconds_per_gb), ``completing``, then ``success`` with
the volume on its destination, or ``error`` with the volume where it
was. Its status is back to what it was either way. A retype changes the
type at once when the volume's pool suits the new type, migrates it
first (status ``retyping`` throughout) when not and the policy is
``on-demand``, and fails otherwise. Cinder sends no notification of a
migration: only the pools' capacity changes (capacity.pool); a retype
ends with ``volume.retype``.
"""

import dataclasses

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator.cinder import storage as storage_mod
from watcher_ha.simulator.nova import model as nova_model

Refused = nova_model.Refused

# Migration statuses a new migration or retype may start from.
AVAILABLE_MIGRATION_STATUS = (None, 'deleting', 'error', 'success')
MIGRATE = 'migrate'
RETYPE = 'retype'


@dataclasses.dataclass
class Move:
    """One migration or retype Cinder was asked for."""
    id: int
    volume_id: str
    kind: str                 # migrate, retype
    source: str               # host@backend#pool
    dest: str | None          # None: a retype that stays in its pool
    old_type: str             # type ids
    new_type: str
    status: str               # starting, migrating, completing, success,
    #                           error
    fail: bool = False        # fault injection: the copy fails
    reason: str | None = None
    created_at: object = dataclasses.field(
        default_factory=clock_mod.REAL.now)
    updated_at: object = None


def _new_move(storage, volume, kind, dest, new_type):
    move = Move(id=next(storage.move_ids), volume_id=volume.id, kind=kind,
                source=volume.pool, dest=dest, old_type=volume.type_id,
                new_type=new_type, status='starting',
                created_at=storage.cloud.clock.now())
    move.fail = bool(storage.faults
                     and storage.faults.take_volume_migration_failure(
                         volume.id))
    storage.moves.append(move)
    return move


def migrate(storage, ident, host, lock_volume=False):
    """Cinder's os-migrate_volume to the pool ``host``."""
    with storage.lock:
        volume = storage.volume(ident)
        backend_name = (host or '').split('#')[0]
        backend = storage.backends.get(backend_name)
        pool = storage.pools.get(host)
        if backend is None or not storage.usable(backend):
            raise Refused(400, "Invalid host: No available service named "
                               "'%s'" % host)
        if (volume.status not in ('available', 'in-use')
                or volume.migration_status not in AVAILABLE_MIGRATION_STATUS
                or volume.pool == host):
            raise Refused(400, 'Invalid volume: Volume %s status must be '
                               'available or in-use, must not be migrating, '
                               'have snapshots, be replicated, be part of a '
                               'group and destination host/cluster must be '
                               'different than the current one' % volume.id)
        move = _new_move(storage, volume, MIGRATE, host, volume.type_id)
        volume.previous_status = volume.status
        volume.migration_status = 'starting'
        if lock_volume and volume.status == 'available':
            volume.status = 'maintenance'
        storage.touch(volume)
        if pool is None:
            # A backend without that pool: the scheduler's host check
            # fails, the volume manager never sees it.
            storage.cloud._later(storage.timings['volume_step_seconds'],
                                 _end, storage, volume, move,
                                 'no pool %s' % host)
            return move
        storage.cloud._later(storage.timings['volume_step_seconds'],
                             _start_copy, storage, volume, move)
        return move


def retype(storage, ident, new_type_ref, policy='never'):
    """Cinder's os-retype to ``new_type_ref`` (name or id)."""
    with storage.lock:
        volume = storage.volume(ident)
        try:
            new_type = storage.volume_type(new_type_ref)
        except Refused:
            raise Refused(400, 'Invalid input received: Invalid volume_type '
                               'passed: %s.' % new_type_ref)
        if policy not in ('never', 'on-demand'):
            raise Refused(400, "Invalid input for field/attribute "
                               "migration_policy. Value: %s. %r is not one "
                               "of ['never', 'on-demand']" % (policy, policy))
        if (volume.status not in ('available', 'in-use')
                or volume.migration_status not in AVAILABLE_MIGRATION_STATUS
                or volume.type_id == new_type.id):
            raise Refused(400, 'Invalid volume: Retype needs volume to be in '
                               'available or in-use state, not be part of an '
                               'active migration or a consistency group, '
                               'requested type has to be different that the '
                               'one from the volume, and for in-use volumes '
                               'front-end qos specs cannot change.')
        move = _new_move(storage, volume, RETYPE, None, new_type.id)
        volume.previous_status = volume.status
        volume.status = 'retyping'
        storage.touch(volume)
        storage.cloud._later(storage.timings['volume_step_seconds'],
                             _schedule_retype, storage, volume, move,
                             new_type, policy)
        return move


def _schedule_retype(storage, volume, move, new_type, policy):
    if storage.volumes.get(volume.id) is not volume:
        return
    pool = storage.pool_of(volume)
    if pool is not None and storage.fits(new_type, pool):
        # The driver changes the type where the volume is.
        move.dest = volume.pool
        _end(storage, volume, move, None)
        return
    if policy == 'never':
        _end(storage, volume, move, 'retype needs a migration and the '
                                    'policy is never')
        return
    dest = storage.schedule(new_type, volume.size,
                            zone=volume.availability_zone,
                            exclude=(volume.pool,))
    if dest is None:
        _end(storage, volume, move, 'No valid backend was found.')
        return
    move.dest = dest.full_name
    _start_copy(storage, volume, move)


def _start_copy(storage, volume, move):
    if storage.volumes.get(volume.id) is not volume:
        return
    dest = storage.pools[move.dest]
    server_states = [storage.cloud.servers[a.server_uuid].vm_state
                     for a in volume.attachments
                     if a.server_uuid in storage.cloud.servers]
    if storage.virtual_free(dest) < volume.size:
        _end(storage, volume, move, 'not enough space on %s' % move.dest)
        return
    if any(state not in storage_mod.SWAPPABLE_SERVER_STATES
           for state in server_states):
        # Nova swaps the data of an attached volume only for a server
        # that runs (its swap_volume).
        _end(storage, volume, move, 'Nova cannot swap the volume of a '
                                    'server that is not running')
        return
    move.status = volume.migration_status = 'migrating'
    move.updated_at = storage.cloud.clock.now()
    volume.migration_target = move.dest
    storage.touch(volume)
    storage.notify_capacity(move.dest)
    seconds = max(storage_mod.MIN_COPY_SECONDS, volume.size
                  * storage.timings['volume_migration_seconds_per_gb'])
    storage.cloud._later(seconds, _copied, storage, volume, move)


def _copied(storage, volume, move):
    if storage.volumes.get(volume.id) is not volume:
        return
    if move.fail:
        _end(storage, volume, move, 'the copy failed (simulator fault)')
        return
    move.status = volume.migration_status = 'completing'
    move.updated_at = storage.cloud.clock.now()
    storage.touch(volume)
    storage.cloud._later(storage.timings['volume_step_seconds'], _end,
                         storage, volume, move, None)


def _end(storage, volume, move, failure):
    """The move ends: a success (``failure`` None) or a failure, why."""
    if storage.volumes.get(volume.id) is not volume:
        return
    source, target = volume.pool, volume.migration_target
    volume.migration_target = None
    moved = move.dest not in (None, volume.pool)
    if failure is None:
        move.status = 'success'
        if moved:
            volume.pool = move.dest
            volume.availability_zone = storage.pools[move.dest].backend.zone
            volume.migration_status = 'success'
        elif move.kind == MIGRATE:
            volume.migration_status = 'success'
        volume.type_id = move.new_type
    else:
        move.status = 'error'
        move.reason = failure
        if move.kind == MIGRATE or target is not None:
            volume.migration_status = 'error'
    volume.status = volume.previous_status
    move.updated_at = storage.cloud.clock.now()
    storage.touch(volume)
    if failure is None and move.kind == RETYPE:
        storage.notify('volume.retype', volume, volume_type=move.new_type)
    storage.notify_capacity(source, target)
