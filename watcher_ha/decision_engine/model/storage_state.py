"""One version of the storage model: Cinder's backends, pools, volumes
and which pool holds which volume, in persistent maps, as state.py keeps
the compute model (a ``StorageState`` never changes once made; its
``Changes`` gathers updates and makes the next one), so that ClusterModel
keeps either, with the same snapshot, apply and resync.
"""

import dataclasses
import operator

import immutables

from watcher_ha.decision_engine.model import state as model_state

EMPTY = model_state.EMPTY
_read = model_state.read
_current = model_state.current
_merge = model_state.merge


@dataclasses.dataclass(frozen=True)
class StorageState:
    # 'host@backend' -> StorageNode
    nodes: immutables.Map = EMPTY
    # 'host@backend#pool' -> Pool
    pools: immutables.Map = EMPTY
    # uuid -> Volume
    volumes: immutables.Map = EMPTY
    # pool name -> Map of the uuids of the volumes it holds
    placement: immutables.Map = EMPTY
    # uuid -> state.Tombstone: a late event must not bring a deleted
    # volume back.
    tombstones: immutables.Map = EMPTY
    # volume type id -> VolumeType: notifications name a volume's type by
    # its id, the API by its name.
    volume_types: immutables.Map = EMPTY
    generation: int = 0

    # Read side, for strategies and the API.

    def node(self, host):
        return self.nodes.get(host)

    def pool(self, name):
        return self.pools.get(name)

    def volume(self, uuid):
        return self.volumes.get(uuid)

    def volumes_in(self, pool_name):
        """The volumes ``pool_name`` holds, in uuid order."""
        return [self.volumes[uuid]
                for uuid in sorted(self.placement.get(pool_name, EMPTY))]

    def pools_of(self, host):
        """The pools of the backend ``host`` ('host@backend'), by name."""
        return [self.pools[name] for name in sorted(self.pools)
                if self.pools[name].node == host]

    def unplaced_volumes(self):
        """Volumes in no pool the model knows, in uuid order."""
        return [volume for uuid, volume in sorted(self.volumes.items())
                if volume.pool is None or volume.pool not in self.pools]

    def allocated(self, pool_name):
        """What the volumes ``pool_name`` holds add up to, in GiB."""
        return sum(self.volumes[uuid].size
                   for uuid in self.placement.get(pool_name, EMPTY))

    def summary(self):
        return '%d backends, %d pools, %d volumes' % (
            len(self.nodes), len(self.pools), len(self.volumes))

    def changes(self):
        return StorageChanges(self)


class StorageChanges(model_state.Overlay):
    """Updates over one StorageState, gathered into the next by
    ``state()``."""

    place_of = operator.attrgetter('pool')

    def __init__(self, state):
        super().__init__(state)
        self._nodes = {}
        self._pools = {}
        self._volumes = {}
        self._volume_types = {}

    # Reads see the updates made so far.

    def node(self, host):
        return _read(self._nodes, self._base.nodes, host)

    def pool(self, name):
        return _read(self._pools, self._base.pools, name)

    def volume(self, uuid):
        return _read(self._volumes, self._base.volumes, uuid)

    def volume_type(self, type_id):
        return _read(self._volume_types, self._base.volume_types, type_id)

    def volume_types(self):
        return _current(self._volume_types, self._base.volume_types)

    def all_nodes(self):
        """Every node, as of the updates made so far."""
        return _current(self._nodes, self._base.nodes)

    def all_volumes(self):
        """Every volume, as of the updates made so far."""
        return _current(self._volumes, self._base.volumes)

    def allocated(self, pool_name):
        """What the volumes ``pool_name`` holds add up to, in GiB."""
        return sum(self.volume(uuid).size
                   for uuid in self._placed(pool_name))

    # Writes.

    def put_node(self, node):
        self._put(self._nodes, node.host, node)

    def remove_node(self, host):
        self._remove(self._nodes, self._base.nodes, host)

    def put_pool(self, pool):
        self._put(self._pools, pool.name, pool)

    def remove_pool(self, name):
        self._remove(self._pools, self._base.pools, name)

    def put_volume_type(self, volume_type):
        self._put(self._volume_types, volume_type.id, volume_type)

    def remove_volume_type(self, type_id):
        self._remove(self._volume_types, self._base.volume_types, type_id)

    def put_volume(self, volume):
        self._put_placed(self._volumes, self._base.volumes, volume)

    def remove_volume(self, uuid, stamp, final=True):
        """Remove the volume ``uuid``, for good by default: Cinder never
        gives a deleted volume's uuid to another."""
        self._bury(self._volumes, self._base.volumes, uuid, stamp, final)

    def carry_tombstones(self, tombstones, since):
        """Keep, from an older state's ``tombstones``, those of deletions
        at or after ``since`` of volumes this state does not hold."""
        self._carry(tombstones, since, self._volumes, self._base.volumes)

    def state(self):
        """The next state (the same one if nothing changed)."""
        if not self.count:
            return self._base
        return StorageState(
            nodes=_merge(self._base.nodes, self._nodes),
            pools=_merge(self._base.pools, self._pools),
            volumes=_merge(self._base.volumes, self._volumes),
            placement=_merge(self._base.placement, self._next_placement()),
            tombstones=_merge(self._base.tombstones, self._tombstones),
            volume_types=_merge(self._base.volume_types,
                                self._volume_types),
            generation=self._base.generation + 1)
