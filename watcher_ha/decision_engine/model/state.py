"""One version of the cluster: compute nodes, instances and the mapping
between them, in persistent maps (immutables.Map: a hash array mapped
trie, so a changed map shares every untouched part with the old one).

A ``ClusterState`` never changes once made: ``Changes`` gathers updates
over one state and makes the next one from them. So a snapshot for an
audit is just the current state object, taken in O(1), and later updates
cannot reach it.
"""

import dataclasses
import datetime
import operator
import typing

import immutables

EMPTY = immutables.Map()
# Marks a key removed in a Changes overlay (here and in storage_state,
# which shares these overlay helpers).
GONE = object()


class Tombstone(typing.NamedTuple):
    """A removed server: when, and whether for good (deleted: Nova never
    reuses a uuid, so nothing brings it back, whatever the stamps; else
    soft-deleted, and only a newer event, a restore, brings it back)."""
    stamp: datetime.datetime
    final: bool = False


@dataclasses.dataclass(frozen=True)
class ClusterState:
    # hostname -> ComputeNode
    nodes: immutables.Map = EMPTY
    # uuid -> Instance
    instances: immutables.Map = EMPTY
    # hostname -> Map of the uuids of the instances placed there
    placement: immutables.Map = EMPTY
    # uuid -> Tombstone: a late update must not bring a removed server
    # back.
    tombstones: immutables.Map = EMPTY
    # aggregate name -> Aggregate, stamped with what last said who its
    # members are: an older aggregate event arriving later must not undo
    # a newer one.
    aggregates: immutables.Map = EMPTY
    generation: int = 0

    # Read side, for strategies.

    def node(self, hostname):
        return self.nodes.get(hostname)

    def instance(self, uuid):
        return self.instances.get(uuid)

    def instances_on(self, hostname):
        """The instances placed on ``hostname``, in uuid order."""
        return [self.instances[uuid]
                for uuid in sorted(self.placement.get(hostname, EMPTY))]

    def used(self, hostname, resource):
        """What the node's instances take of ``resource``, and what else
        Placement counted there at the last full read."""
        node = self.nodes.get(hostname)
        return sum(getattr(instance, resource)
                   for instance in self.instances_on(hostname)) + (
            node.held(resource) if node is not None else 0)

    def summary(self):
        return '%d nodes, %d instances' % (len(self.nodes),
                                           len(self.instances))

    def changes(self):
        return Changes(self)


class Overlay:
    """Updates over one state (ClusterState here, StorageState in
    storage_state): an overlay of the keys changed on each of its maps
    (GONE: removed), read through to the state, each update counted in
    ``count``; where each element is placed (``placement``: place -> Map
    of the uuids there; ``place_of`` tells an element's); and the
    tombstones of removed elements."""

    place_of = None

    def __init__(self, state):
        self._base = state
        self._placement = {}
        self._tombstones = {}
        self.count = 0

    def tombstone(self, uuid):
        return read(self._tombstones, self._base.tombstones, uuid)

    def _put(self, overlay, key, value):
        overlay[key] = value
        self.count += 1

    def _remove(self, overlay, base, key):
        """Remove ``key`` from a map, if it holds it so far."""
        if read(overlay, base, key) is not None:
            overlay[key] = GONE
            self.count += 1

    def _put_placed(self, overlay, base, element):
        """Put ``element`` in a map of placed elements (by uuid), where it
        is placed (None: nowhere); it is no longer buried."""
        old = read(overlay, base, element.uuid)
        place = self.place_of(element)
        if old is not None and self.place_of(old) != place:
            self._unplace(old.uuid, self.place_of(old))
        if old is None or self.place_of(old) != place:
            self._place(element.uuid, place)
        overlay[element.uuid] = element
        if self.tombstone(element.uuid) is not None:
            self._tombstones[element.uuid] = GONE
        self.count += 1

    def _bury(self, overlay, base, uuid, stamp, final):
        """Remove the placed element ``uuid`` and leave its Tombstone."""
        old = read(overlay, base, uuid)
        if old is not None:
            self._unplace(uuid, self.place_of(old))
            overlay[uuid] = GONE
        self._tombstones[uuid] = Tombstone(stamp, final)
        self.count += 1

    def _carry(self, tombstones, since, overlay, base):
        """Keep, from an older state's ``tombstones``, those of removals
        at or after ``since`` of elements the map does not hold."""
        for uuid, buried in tombstones.items():
            if buried.stamp >= since and read(overlay, base,
                                              uuid) is None:
                self._tombstones[uuid] = buried
                self.count += 1

    def _placed(self, place):
        if place in self._placement:
            return self._placement[place]
        return self._base.placement.get(place, EMPTY)

    def _place(self, uuid, place):
        if place is not None:
            self._placement[place] = self._placed(place).set(uuid, None)

    def _unplace(self, uuid, place):
        if place is None:
            return
        placed = self._placed(place)
        if uuid in placed:
            self._placement[place] = placed.delete(uuid)

    def _next_placement(self):
        """The placement overlay to merge: a place left empty goes."""
        return {place: (GONE if not len(placed) else placed)
                for place, placed in self._placement.items()}


class Changes(Overlay):
    """Updates over one ClusterState, gathered into the next by
    ``state()``."""

    place_of = operator.attrgetter('host')

    def __init__(self, state):
        super().__init__(state)
        self._nodes = {}
        self._instances = {}
        self._aggregates = {}

    # Reads see the updates made so far.

    def node(self, hostname):
        return read(self._nodes, self._base.nodes, hostname)

    def instance(self, uuid):
        return read(self._instances, self._base.instances, uuid)

    def aggregate(self, name):
        return read(self._aggregates, self._base.aggregates, name)

    def aggregate_named_by(self, uuid):
        """The name the model knows the aggregate ``uuid`` by, if any."""
        for name, aggregate in current(self._aggregates,
                                        self._base.aggregates).items():
            if aggregate.uuid == uuid:
                return name
        return None

    def has_node(self, hostname):
        return self.node(hostname) is not None

    def all_nodes(self):
        """Every node, as of the updates made so far."""
        return current(self._nodes, self._base.nodes)

    # Writes.

    def put_node(self, node):
        self._put(self._nodes, node.hostname, node)

    def remove_node(self, hostname):
        self._remove(self._nodes, self._base.nodes, hostname)

    def put_instance(self, instance):
        self._put_placed(self._instances, self._base.instances, instance)

    def remove_instance(self, uuid, stamp, final=False):
        self._bury(self._instances, self._base.instances, uuid, stamp,
                   final)

    def carry_tombstones(self, tombstones, since):
        """Keep, from an older state's ``tombstones``, those of removals
        at or after ``since`` of servers this state does not hold: a late
        event about them must not bring them back after a resync either."""
        self._carry(tombstones, since, self._instances,
                    self._base.instances)

    def put_aggregate(self, aggregate):
        self._put(self._aggregates, aggregate.name, aggregate)

    def remove_aggregate(self, name):
        self._remove(self._aggregates, self._base.aggregates, name)

    def state(self):
        """The next state (the same one if nothing changed)."""
        if not self.count:
            return self._base
        return ClusterState(
            nodes=merge(self._base.nodes, self._nodes),
            instances=merge(self._base.instances, self._instances),
            placement=merge(self._base.placement, self._next_placement()),
            tombstones=merge(self._base.tombstones, self._tombstones),
            aggregates=merge(self._base.aggregates, self._aggregates),
            generation=self._base.generation + 1)


def current(overlay, base):
    """{key: value} of ``base`` with the ``overlay`` applied."""
    found = dict(base.items())
    for key, value in overlay.items():
        if value is GONE:
            found.pop(key, None)
        else:
            found[key] = value
    return found


def read(overlay, base, key):
    if key in overlay:
        value = overlay[key]
        return None if value is GONE else value
    return base.get(key)


def merge(base, overlay):
    if not overlay:
        return base
    with base.mutate() as mutation:
        for key, value in overlay.items():
            if value is GONE:
                if key in mutation:
                    del mutation[key]
            else:
                mutation[key] = value
        return mutation.finish()
