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


class Changes:
    """Updates over one state (overlays on its maps), gathered into the
    next state by ``state()``."""

    def __init__(self, state):
        self._base = state
        self._nodes = {}
        self._instances = {}
        self._tombstones = {}
        self._aggregates = {}
        self._placement = {}
        self.count = 0

    # Reads see the updates made so far.

    def node(self, hostname):
        return read(self._nodes, self._base.nodes, hostname)

    def instance(self, uuid):
        return read(self._instances, self._base.instances, uuid)

    def tombstone(self, uuid):
        return read(self._tombstones, self._base.tombstones, uuid)

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
        self._nodes[node.hostname] = node
        self.count += 1

    def remove_node(self, hostname):
        if self.has_node(hostname):
            self._nodes[hostname] = GONE
            self.count += 1

    def put_instance(self, instance):
        old = self.instance(instance.uuid)
        if old is not None and old.host != instance.host:
            self._unplace(old.uuid, old.host)
        if old is None or old.host != instance.host:
            self._place(instance.uuid, instance.host)
        self._instances[instance.uuid] = instance
        if self.tombstone(instance.uuid) is not None:
            self._tombstones[instance.uuid] = GONE
        self.count += 1

    def remove_instance(self, uuid, stamp, final=False):
        old = self.instance(uuid)
        if old is not None:
            self._unplace(uuid, old.host)
            self._instances[uuid] = GONE
        self._tombstones[uuid] = Tombstone(stamp, final)
        self.count += 1

    def carry_tombstones(self, tombstones, since):
        """Keep, from an older state's ``tombstones``, those of removals
        at or after ``since`` of servers this state does not hold: a late
        event about them must not bring them back after a resync either."""
        for uuid, buried in tombstones.items():
            if buried.stamp >= since and self.instance(uuid) is None:
                self._tombstones[uuid] = buried
                self.count += 1

    def put_aggregate(self, aggregate):
        self._aggregates[aggregate.name] = aggregate
        self.count += 1

    def remove_aggregate(self, name):
        if self.aggregate(name) is not None:
            self._aggregates[name] = GONE
            self.count += 1

    def _placed(self, host):
        if host in self._placement:
            return self._placement[host]
        return self._base.placement.get(host, EMPTY)

    def _place(self, uuid, host):
        if host is not None:
            self._placement[host] = self._placed(host).set(uuid, None)

    def _unplace(self, uuid, host):
        if host is None:
            return
        placed = self._placed(host)
        if uuid in placed:
            self._placement[host] = placed.delete(uuid)

    def state(self):
        """The next state (the same one if nothing changed)."""
        if not self.count:
            return self._base
        placement = dict(self._placement)
        for host, placed in placement.items():
            if not len(placed):
                placement[host] = GONE
        return ClusterState(
            nodes=merge(self._base.nodes, self._nodes),
            instances=merge(self._base.instances, self._instances),
            placement=merge(self._base.placement, placement),
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
