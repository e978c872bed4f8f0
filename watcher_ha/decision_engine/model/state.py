"""One version of the cluster: compute nodes, instances and the mapping
between them, in persistent (structurally shared) maps.

A ``ClusterState`` never changes once made: ``Changes`` applies updates to
an evolver and returns a new state that shares every untouched part with
the old one. So a snapshot for an audit is just the current state object,
taken in O(1), and later updates cannot reach it.
"""

import dataclasses

from pyrsistent import pmap
from pyrsistent import pset


@dataclasses.dataclass(frozen=True)
class ClusterState:
    # hostname -> ComputeNode
    nodes: object = pmap()
    # uuid -> Instance
    instances: object = pmap()
    # hostname -> pset of instance uuids placed there
    placement: object = pmap()
    # uuid -> stamp of its deletion: a late update must not bring a
    # deleted server back.
    tombstones: object = pmap()
    generation: int = 0

    # Read side, for strategies.

    def node(self, hostname):
        return self.nodes.get(hostname)

    def instance(self, uuid):
        return self.instances.get(uuid)

    def instances_on(self, hostname):
        """The instances placed on ``hostname``, in uuid order."""
        return [self.instances[uuid]
                for uuid in sorted(self.placement.get(hostname, ()))]

    def used(self, hostname, resource):
        """What the node's instances take of ``resource``."""
        return sum(getattr(instance, resource)
                   for instance in self.instances_on(hostname))

    def changes(self):
        return Changes(self)


def _get(evolver, key, default=None):
    # Evolvers have no get().
    return evolver[key] if key in evolver else default


class Changes:
    """Updates to one state, gathered into the next one."""

    def __init__(self, state):
        self._base = state
        self.nodes = state.nodes.evolver()
        self.instances = state.instances.evolver()
        self.placement = state.placement.evolver()
        self.tombstones = state.tombstones.evolver()
        self.count = 0

    def put_node(self, node):
        self.nodes[node.hostname] = node
        self.count += 1

    def remove_node(self, hostname):
        if hostname in self.nodes:
            del self.nodes[hostname]
            self.count += 1

    def put_instance(self, instance):
        old = _get(self.instances, instance.uuid)
        if old is not None and old.host != instance.host:
            self._unplace(old.uuid, old.host)
        if old is None or old.host != instance.host:
            self._place(instance.uuid, instance.host)
        self.instances[instance.uuid] = instance
        if instance.uuid in self.tombstones:
            del self.tombstones[instance.uuid]
        self.count += 1

    def remove_instance(self, uuid, stamp):
        old = _get(self.instances, uuid)
        if old is not None:
            self._unplace(uuid, old.host)
            del self.instances[uuid]
        self.tombstones[uuid] = stamp
        self.count += 1

    def _place(self, uuid, host):
        if host is not None:
            self.placement[host] = _get(self.placement, host, pset()).add(uuid)

    def _unplace(self, uuid, host):
        if host is None or host not in self.placement:
            return
        remaining = self.placement[host].discard(uuid)
        if remaining:
            self.placement[host] = remaining
        else:
            del self.placement[host]

    def state(self):
        """The next state (the same one if nothing changed)."""
        if not self.count:
            return self._base
        return ClusterState(
            nodes=self.nodes.persistent(),
            instances=self.instances.persistent(),
            placement=self.placement.persistent(),
            tombstones=self.tombstones.persistent(),
            generation=self._base.generation + 1)
