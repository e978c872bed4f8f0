"""storage_capacity_balance: move volumes off the Cinder pools whose used
capacity is at or above ``volume_threshold`` percent of their total,
onto pools that stay below it (Watcher 17's strategy of that name).

It plans on the storage data model alone (never Cinder's API): a pool's
used capacity is its total less its free capacity, as the backend
reports them. The pools at or above the threshold are the sources, the
most loaded first; those below it (whose backend is up and enabled) the
destinations, and no pool is both. A volume moves only if it is
``available``, or ``in-use`` with one attachment (Nova copies the data of
an attached volume: as Watcher, the available volumes go first, then
those in use that do not boot a server, then those that do), and no
migration of it is under way.

Where it goes:

- **migrate**, to a destination its volume type allows (each extra spec
  of the type the pool reports, ``volume_backend_name`` first, has the
  type's value; an untyped volume, or a type that asks for nothing, fits
  every pool): the destination with the most room left, room being both
  what stays below the threshold and what Cinder's scheduler counts as
  free there (``virtual_free``: thin pools over-subscribed by their
  ratio). A destination never takes a volume it has no room for.
- **retype**, as Watcher, when no destination of its type has room: to
  another type whose extra specs, but the backend name, are the
  volume's type's, and that its pool does not satisfy (else Cinder
  changes the type in place). Cinder's scheduler then chooses the pool:
  the plan counts the volume where the scheduler would put it (of the
  pools of the backends the new type asks for, up and enabled, in the
  volume's zone, the one with the most virtual free space), and retypes
  only when that pool is a destination with room.

Which volumes: a source needs ``used - threshold`` GiB (and a little
more) moved off. Watcher moves the smallest volumes first, the most moves
for the GiB; here each step moves the smallest volume that alone gets the
pool below the threshold, or if none can, the largest that can go, so
the pool gets there in the fewest moves, moving little more than needed.
The plan with Watcher's order (smallest first) is computed too, and the
better of the two is kept: the one that leaves fewer pools at or above
the threshold, then has fewer moves, then leaves those pools nearer to
it, then moves fewer GiB. A volume that
finds no destination never will in this plan (rooms only shrink), so each
volume is placed or given up once: the plan takes O(V log V) for V
volumes, with a heap of destinations per volume type (Watcher sorts the
pools and scans every volume again for each volume it places); only a
volume that no destination of its type takes looks at the pools of
each other type, for a retype.

The audit's ``max_migrations`` bounds the volumes moved,
``max_migrations_per_host`` those moved off one pool and
``max_migrations_per_project`` those of one project. Watcher's
``[watcher_strategies.storage_capacity_balance] ex_pools`` names pools
left alone. As Watcher's, its efficacy indicators are
``instance_migrations_count`` and ``instances_count``, both 0 (no server
moves).
"""

import bisect
import dataclasses
import heapq
import math

from oslo_config import cfg
from oslo_log import log

from watcher_ha.decision_engine.model import storage_elements
from watcher_ha.decision_engine.strategy import base

CONF = cfg.CONF
LOG = log.getLogger(__name__)

GROUP = 'watcher_strategies.storage_capacity_balance'
MIGRATE = 'migrate'
RETYPE = 'retype'
# Cinder's volume statuses of a volume it migrates.
AVAILABLE, IN_USE = 'available', 'in-use'
# Watcher's: a volume whose last migration ended (or that never had one).
SETTLED_MIGRATIONS = (None, 'success')
BACKEND_NAME = 'volume_backend_name'
# The two orders in which a pool's volumes are taken.
FEWEST_MOVES = 'fewest moves'
SMALLEST_FIRST = 'smallest first'
# The extra specs Cinder's capabilities filter compares with what a pool
# reports, of those the model keeps.
POOL_CAPABILITIES = (BACKEND_NAME, 'storage_protocol', 'vendor_name',
                     'driver_version', 'thin_provisioning_support')

_BUDGET = {
    'max_migrations': 'The most volumes one plan (one round of a '
                      'continuous audit) may move; 0: no limit.',
    'max_migrations_per_host': 'The most volumes one plan may move off '
                               'any one pool; 0: no limit.',
    'max_migrations_per_project': 'The most volumes of any one project '
                                  'one plan may move; 0: no limit.',
}


def _budget_spec(description):
    return {'description': description, 'type': 'integer', 'minimum': 0,
            'default': 0}


@dataclasses.dataclass(frozen=True)
class Move:
    volume: storage_elements.Volume
    source: str
    # The pool it lands on (for a retype: where the scheduler would put
    # it), and the new type of a retype.
    destination: str
    kind: str
    new_type: str | None = None


class StorageCapacityBalance(base.Strategy):
    name = 'storage_capacity_balance'
    display_name = 'Storage Capacity Balance Strategy'
    goal = 'workload_balancing'
    data_models = ('storage',)
    parameters_spec = {'properties': {
        # Watcher's schema.
        'volume_threshold': {
            'description': 'volume threshold for capacity balance',
            'type': 'number', 'default': 80.0},
        **{name: _budget_spec(text) for name, text in _BUDGET.items()}}}

    def execute(self, audit, parameters, models=None, metrics=None):
        storage = (models or {}).get('storage')
        if storage is None:
            raise base.StrategyError(
                '%s needs the storage data model: add storage to '
                '[watcher_decision_engine] collectors and configure '
                '[cinder]' % self.name)
        threshold = float(parameters['volume_threshold']) / 100.0
        excluded = frozenset(CONF[GROUP].ex_pools)
        plans = [plan_moves(storage, threshold, parameters, excluded, order)
                 for order in (FEWEST_MOVES, SMALLEST_FIRST)]
        best = min(plans, key=lambda p: p.score())
        LOG.info('storage_capacity_balance: %d pool(s) at or above %.1f %%, '
                 '%d left so after %d move(s) of %d GiB (the %s order)',
                 len(best.sources), 100 * threshold, best.score()[0],
                 len(best.made), sum(m.volume.size for m in best.made),
                 best.order)
        solution = self.new_solution()
        for move in best.made:
            solution.add_action('volume_migrate', _action_parameters(move),
                                resource_id=move.volume.uuid)
        # Watcher's values: this goal counts servers, and none moves.
        solution.set_indicator('instance_migrations_count', 0)
        solution.set_indicator('instances_count', 0)
        return solution


def _action_parameters(move):
    """Watcher's parameters of the volume_migrate action of ``move``."""
    if move.kind == MIGRATE:
        return {'migration_type': MIGRATE,
                'destination_node': move.destination,
                'resource_name': move.volume.name}
    return {'migration_type': RETYPE, 'destination_type': move.new_type,
            'resource_name': move.volume.name}


def plan_moves(storage, threshold, parameters, excluded=frozenset(),
               order=FEWEST_MOVES):
    """The _Plan that brings the pools of ``storage`` (a StorageState)
    below ``threshold`` (a fraction of their total) with volumes taken in
    ``order``."""
    plan = _Plan(storage, threshold, parameters, excluded, order)
    for source in plan.sources:
        plan.relieve(source)
    return plan


def _left_out(pool, excluded):
    return (pool.name in excluded
            or pool.name.partition('#')[2] in excluded)


def _known(pool):
    return (pool.total_capacity_gb is not None
            and pool.free_capacity_gb is not None
            and pool.virtual_free is not None
            and pool.total_capacity_gb > 0)


def fits(volume_type, pool):
    """Whether a volume of ``volume_type`` (a VolumeType) may live in
    ``pool``: each extra spec the pool reports has the type's value."""
    specs = dict(volume_type.extra_specs)
    if volume_type.volume_backend_name is not None:
        specs.setdefault(BACKEND_NAME, volume_type.volume_backend_name)
    for key in POOL_CAPABILITIES:
        have = getattr(pool, key)
        if key in specs and have is not None and \
                str(have) != str(specs[key]):
            return False
    return True


def _same_but_backend(volume_type, other):
    """Watcher's check of a retype: every extra spec of ``volume_type``
    but the backend name has the same value in ``other``."""
    theirs = dict(other.extra_specs)
    return all(theirs.get(key) == value
               for key, value in volume_type.extra_specs
               if key != BACKEND_NAME)


def _tier(volume):
    """Watcher's order: available, in use without booting, booting."""
    if volume.status == AVAILABLE:
        return 0
    return 2 if volume.bootable else 1


def movable(volume):
    return (volume.status in (AVAILABLE, IN_USE)
            and volume.migration_status in SETTLED_MIGRATIONS
            and volume.size > 0
            # Nova swaps the data of one attachment only.
            and len(volume.attachments) <= 1
            and (volume.status == AVAILABLE or volume.attachments))


class _Room:
    """A pool's capacities as the plan's moves change them."""

    def __init__(self, pool, threshold):
        self.pool = pool
        self.used = pool.total_capacity_gb - pool.free_capacity_gb
        self.limit = threshold * pool.total_capacity_gb
        self.virtual_free = pool.virtual_free

    @property
    def over(self):
        return self.used >= self.limit

    def room(self):
        """The largest volume (whole GiB, as Cinder's sizes) the pool
        takes and stays below its limit with Cinder's room for it."""
        return min(math.ceil(self.limit - self.used) - 1,
                   math.floor(self.virtual_free))

    def take(self, size):
        self.used += size
        self.virtual_free -= size

    def give(self, size):
        self.used -= size
        self.virtual_free += size


class _Plan:

    def __init__(self, storage, threshold, parameters, excluded, order):
        self.storage = storage
        self.order = order
        self.limits = {key: parameters.get(key, 0) for key in _BUDGET}
        self.rooms = {}
        for name, pool in storage.pools.items():
            if _known(pool):
                self.rooms[name] = _Room(pool, threshold)
        considered = {name: room for name, room in self.rooms.items()
                      if not _left_out(room.pool, excluded)}
        self.sources = sorted(
            (name for name, room in considered.items()
             if room.over and self._backend_up(room.pool)),
            key=lambda name: (-considered[name].used
                              / considered[name].pool.total_capacity_gb,
                              name))
        self.destinations = {name for name, room in considered.items()
                             if not room.over and self._usable(room.pool)}
        self.types = {t.name: t for t in storage.volume_types.values()}
        # volume type name (None: any pool) -> heap of (-room, pool).
        self._heaps = {}
        self.made = []
        self._per_pool = {}
        self._per_project = {}

    def _node(self, pool):
        return self.storage.node(pool.node)

    def _backend_up(self, pool):
        node = self._node(pool)
        return node is not None and node.state == 'up'

    def _usable(self, pool):
        """Whether Cinder sends volumes to the pool's backend."""
        node = self._node(pool)
        return (node is not None and node.state == 'up'
                and node.status == 'enabled')

    # Budget.

    def _within_budget(self, volume, source):
        limit = self.limits
        return not (
            (limit['max_migrations']
             and len(self.made) >= limit['max_migrations'])
            or (limit['max_migrations_per_host']
                and self._per_pool.get(source, 0)
                >= limit['max_migrations_per_host'])
            or (limit['max_migrations_per_project']
                and self._per_project.get(volume.project_id, 0)
                >= limit['max_migrations_per_project']))

    def budget_spent(self):
        return bool(self.limits['max_migrations']) and \
            len(self.made) >= self.limits['max_migrations']

    # Where a volume may go.

    def _heap(self, type_name, source):
        """The destinations a volume of ``type_name`` may migrate to,
        by room."""
        key = (type_name, source) if type_name not in self.types \
            and type_name is not None else type_name
        heap = self._heaps.get(key)
        if heap is None:
            heap = [(-self.rooms[name].room(), name)
                    for name in sorted(self.destinations)
                    if self._type_fits(type_name, source, name)]
            heapq.heapify(heap)
            self._heaps[key] = heap
        return heap

    def _type_fits(self, type_name, source, name):
        pool = self.rooms[name].pool
        if type_name is None:
            return True
        volume_type = self.types.get(type_name)
        if volume_type is None:
            # A type the model does not know: only where it is now fits
            # for sure, the backend it was placed on.
            return pool.volume_backend_name is not None and \
                pool.volume_backend_name == self.rooms[
                    source].pool.volume_backend_name
        return fits(volume_type, pool)

    def _best(self, heap):
        """(room, pool) of the destination with the most room in
        ``heap``; rooms only shrink, so a stale entry is put back with
        its room now."""
        while heap:
            negative, name = heap[0]
            room = self.rooms[name].room()
            if -negative == room:
                return room, name
            heapq.heapreplace(heap, (-room, name))
        return None, None

    def _migration(self, volume, source):
        room, name = self._best(self._heap(volume.volume_type, source))
        if name is not None and room >= volume.size:
            return Move(volume, source, name, MIGRATE)
        return None

    def _retype(self, volume, source):
        current = self.types.get(volume.volume_type)
        if current is None:
            return None
        pool = self.rooms[source].pool
        best = None
        for name in sorted(self.types):
            other = self.types[name]
            if (name == current.name or not other.volume_backend_name
                    or not _same_but_backend(current, other)
                    or fits(other, pool)):
                continue
            landing = self._scheduled(other, volume, source)
            if landing is None or landing not in self.destinations:
                continue
            room = self.rooms[landing].room()
            if room >= volume.size and (best is None or room > best[0]):
                best = (room, Move(volume, source, landing, RETYPE, name))
        return best and best[1]

    def _scheduled(self, volume_type, volume, source):
        """The pool Cinder's scheduler would give ``volume`` retyped to
        ``volume_type``: of a usable backend in the volume's zone, fitting
        the type, with room, the most virtual free space first."""
        candidates = [
            (room.virtual_free, name) for name, room in self.rooms.items()
            if name != source and self._usable(room.pool)
            and (volume.availability_zone is None
                 or self._node(room.pool).zone == volume.availability_zone)
            and fits(volume_type, room.pool)
            and room.virtual_free >= volume.size]
        return max(candidates)[1] if candidates else None

    def _place(self, volume, source):
        if not self._within_budget(volume, source):
            return False
        move = (self._migration(volume, source)
                or self._retype(volume, source))
        if move is None:
            return False
        self.rooms[source].give(volume.size)
        self.rooms[move.destination].take(volume.size)
        self._per_pool[source] = self._per_pool.get(source, 0) + 1
        self._per_project[volume.project_id] = \
            self._per_project.get(volume.project_id, 0) + 1
        self.made.append(move)
        return True

    # Relieving a pool.

    def relieve(self, source):
        volumes = [v for v in self.storage.volumes_in(source) if movable(v)]
        room = self.rooms[source]
        for tier in (0, 1, 2):
            if not room.over or self.budget_spent():
                return
            sizes = _Sizes(sorted((v for v in volumes if _tier(v) == tier),
                                  key=lambda v: (v.size, v.uuid)))
            if self.order == SMALLEST_FIRST:
                self._smallest_first(sizes, source, room)
            else:
                self._fewest_moves(sizes, source, room)

    def _smallest_first(self, sizes, source, room):
        index = sizes.first()
        while index is not None and room.over and not self.budget_spent():
            self._place(sizes.volumes[index], source)
            sizes.remove(index)
            index = sizes.first()

    def _fewest_moves(self, sizes, source, room):
        while room.over and not self.budget_spent():
            # One volume that alone takes the pool below its limit...
            index = sizes.first_above(room.used - room.limit)
            while index is not None:
                placed = self._place(sizes.volumes[index], source)
                sizes.remove(index)
                if placed:
                    return
                index = sizes.first_above(room.used - room.limit)
            # ...or else the largest that can go.
            index = sizes.last()
            while index is not None:
                placed = self._place(sizes.volumes[index], source)
                sizes.remove(index)
                if placed:
                    break
                index = sizes.last()
            if index is None:
                return

    def score(self):
        """What ranks two plans: pools left at or above the threshold,
        moves, GiB those pools are still above it, GiB moved."""
        left = [self.rooms[name] for name in self.sources
                if self.rooms[name].over]
        return (len(left), len(self.made),
                sum(room.used - room.limit for room in left),
                sum(m.volume.size for m in self.made))


class _Sizes:
    """Volumes in size order, each taken at most once: the smallest one
    above a size, or the largest, in near-constant time (the next one
    left over a taken one is found by path halving)."""

    def __init__(self, volumes):
        self.volumes = volumes
        self._sizes = [v.size for v in volumes]
        count = len(volumes)
        # index -> the first index at or after it still there (count:
        # none), and the last at or before it (-1: none).
        self._up = list(range(count + 1))
        self._down = list(range(count + 1))  # shifted by one

    def _find(self, links, index):
        while links[index] != index:
            links[index] = links[links[index]]
            index = links[index]
        return index

    def first(self):
        return self.first_above(-math.inf)

    def first_above(self, size):
        """The index of the smallest volume left larger than ``size``."""
        start = bisect.bisect_right(self._sizes, size)
        found = self._find(self._up, start)
        return found if found < len(self.volumes) else None

    def last(self):
        found = self._find(self._down, len(self.volumes)) - 1
        return found if found >= 0 else None

    def remove(self, index):
        self._up[index] = index + 1
        self._down[index + 1] = index
