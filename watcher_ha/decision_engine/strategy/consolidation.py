"""Emptying compute nodes whole: the packing both server consolidation
strategies (vm_workload_consolidation, node_resource_consolidation)
share.

A node is emptied only if every one of its servers finds room on the
nodes that stay; otherwise none of them moves. A migration that leaves
its source with servers frees nothing, and Watcher's strategies make
many of those. Each server goes to the first node, in an order of
preference the strategy gives, with room for it in every dimension:
Placement's (vcpus, memory, disk, through ``Moves``) and any measured
ones the strategy adds (CPU, RAM and disk in use).

Finding that first node is a walk down a max-tree over the nodes in
preference order (first_fit.FirstFit): a server is placed in about
log(nodes) steps, where Watcher tries the nodes one by one (nodes x
servers for a whole audit).
"""

from watcher_ha.decision_engine.strategy import first_fit
from watcher_ha.decision_engine.strategy import moves as moves_mod

# How many servers' worth a node's size counts for, as a share of the
# servers an average node holds, when choosing which nodes to empty:
# among nodes with about as few servers, the smaller goes first, so the
# bigger ones stay as destinations. Tuned on the reference clusters,
# where anything from 0.12 to 0.2 frees the most nodes for the fewest
# migrations.
SIZE_WEIGHT = 0.15


class Usage:
    """Measured dimensions a strategy packs by beside Placement's: per
    node its capacity and what is in use, per server what it uses, each
    a tuple in the same order."""

    def __init__(self, capacity, used, of_server):
        self.capacity = capacity      # hostname -> tuple
        self.used = used              # hostname -> tuple
        self.of_server = of_server    # uuid -> tuple


class Packer:
    """Moves servers, through ``moves``, to the first destination in
    ``destinations`` (hostnames, best first) with room for them."""

    def __init__(self, moves, destinations, usage=None):
        self.moves = moves
        self.usage = usage
        self.order = list(destinations)
        self.dimensions = len(moves_mod.RESOURCES) + (
            len(next(iter(usage.capacity.values())))
            if usage and usage.capacity else 0)
        self.room = {h: self._initial_room(h) for h in moves.capacity}
        self.index = first_fit.FirstFit({h: self.room[h]
                                         for h in self.order})
        self.open = set(self.order)
        # Nodes this plan sends servers to: they stay (a server never
        # moves twice in one plan).
        self.received = set()
        # The room of the open destinations, summed per dimension: a
        # node whose servers need more than that cannot be emptied, and
        # is known so without trying.
        self.total = [sum(max(0, self.room[h][d]) for h in self.order)
                      for d in range(self.dimensions)]
        scale = [sum(moves.capacity[h][r] for h in moves.capacity)
                 for r in moves_mod.RESOURCES]
        if usage:
            scale += [sum(c[d] for c in usage.capacity.values())
                      for d in range(self.dimensions - len(scale))]
        count = max(1, len(moves.capacity))
        self._scale = [max(s / count, 1e-9) for s in scale]

    def _initial_room(self, hostname):
        room = [self.moves.free(hostname, r) for r in moves_mod.RESOURCES]
        if self.usage:
            # A node the strategy did not measure (down) is no
            # destination; it gets no room for servers in those.
            capacity = self.usage.capacity.get(hostname)
            used = self.usage.used.get(hostname)
            room += ([c - u for c, u in zip(capacity, used, strict=True)]
                     if capacity
                     else [0.0] * (self.dimensions - len(room)))
        return room

    def need(self, instance):
        need = moves_mod.need_of(instance)
        if self.usage:
            need += self.usage.of_server[instance.uuid]
        return need

    def bulk(self, need):
        """One number for how hard a server is to place: its largest
        share of an average node."""
        return max(n / s for n, s in zip(need, self._scale, strict=True))

    # The destinations.

    def close(self, hostname):
        """Take ``hostname`` out of the destinations (it is being
        emptied, or was)."""
        if hostname in self.open:
            self.open.discard(hostname)
            self._add_total(self.room[hostname], -1)
            self.index.drop(hostname)

    def reopen(self, hostname):
        if hostname in self.index and hostname not in self.open:
            self.open.add(hostname)
            self._add_total(self.room[hostname], 1)
            self.index.set(hostname, self.room[hostname])

    def _add_total(self, room, sign):
        for d, value in enumerate(room):
            if value > 0:
                self.total[d] += sign * value

    def _change_room(self, hostname, need, sign):
        room = self.room[hostname]
        is_open = hostname in self.open
        if is_open:
            self._add_total(room, -1)
        for d, value in enumerate(need):
            room[d] += sign * value
        if is_open:
            self._add_total(room, 1)
            self.index.set(hostname, room)

    def _first(self, instance, need):
        zone = instance.pinned_availability_zone
        if not zone:
            return self.index.first(need)
        nodes = self.moves.cluster.nodes
        return self.index.first(
            need, accept=lambda h: nodes[h].availability_zone == zone)

    # Moving servers.

    def place(self, instance):
        """Move one server to the first destination with room for it
        (never its own node); returns the destination, or None when it
        cannot move (no room, its state, the budget)."""
        kind = moves_mod.migration_type(instance)
        if kind is None or not self.moves.within_budget(instance):
            return None
        source = self.moves.host_of(instance)
        was_open = source in self.open
        self.close(source)
        need = self.need(instance)
        destination = self._first(instance, need)
        if destination is not None:
            self._commit(instance, kind, source, destination, need)
        if was_open:
            self.reopen(source)
        return destination

    def empty(self, hostname):
        """Move every server off ``hostname``, or none; returns whether
        it was emptied. An emptied node stays out of the destinations."""
        if hostname in self.received:
            return False
        servers = self.moves.instances_on(hostname)
        kinds = [moves_mod.migration_type(s) for s in servers]
        if None in kinds or not self.moves.within_budget_all(servers):
            return False
        was_open = hostname in self.open
        self.close(hostname)
        needs = [self.need(s) for s in servers]
        if not self._may_hold(needs):
            return self._undo([], needs, hostname, was_open)
        taken = []
        for k in sorted(range(len(servers)),
                        key=lambda k: -self.bulk(needs[k])):
            destination = self._first(servers[k], needs[k])
            if destination is None:
                return self._undo(taken, needs, hostname, was_open)
            self._change_room(destination, needs[k], -1)
            taken.append((k, destination))
        for k, destination in taken:
            self.moves.move(servers[k], destination, kinds[k])
            self._change_room(hostname, needs[k], 1)
            self.received.add(destination)
        return True

    def _may_hold(self, needs):
        columns = zip(*needs, strict=True)
        return all(total >= sum(column) for total, column in zip(
            self.total, columns, strict=True))

    def _undo(self, taken, needs, hostname, was_open):
        for k, destination in taken:
            self._change_room(destination, needs[k], 1)
        if was_open:
            self.reopen(hostname)
        return False

    def _commit(self, instance, kind, source, destination, need):
        self._change_room(destination, need, -1)
        self._change_room(source, need, 1)
        self.moves.move(instance, destination, kind)
        self.received.add(destination)


def emptying_order(moves, hostnames, busy=None):
    """``hostnames`` in the order to try emptying them: the fewest
    servers first (the fewest migrations for a node freed), weighted by
    the node's size against the average one (see SIZE_WEIGHT), then the
    least ``busy`` (hostname -> a number). Destinations are best tried
    the other way round."""
    hostnames = list(hostnames)
    count = {h: len(moves.instances_on(h)) for h in hostnames}
    nodes = max(1, len(moves.capacity))
    mean = {r: sum(c[r] for c in moves.capacity.values()) / nodes or 1
            for r in moves_mod.RESOURCES}
    weight = SIZE_WEIGHT * sum(count.values()) / max(1, len(hostnames))

    def size(hostname):
        capacity = moves.capacity[hostname]
        return sum(capacity[r] / mean[r]
                   for r in moves_mod.RESOURCES) / len(mean)

    busy = busy or {}
    return sorted(hostnames, key=lambda h: (
        count[h] + weight * size(h), busy.get(h, 0), h))


def service_state(solution, node, state, reason=None):
    """Add a change_nova_service_state action for ``node``."""
    parameters = {'resource_id': node.uuid or node.hostname,
                  'resource_name': node.hostname, 'state': state}
    if reason is not None:
        parameters['disabled_reason'] = reason
    solution.add_action('change_nova_service_state', parameters)


def set_indicators(solution, nodes, released, migrations):
    solution.set_indicator('compute_nodes_count', nodes)
    solution.set_indicator('released_compute_nodes_count', released)
    solution.set_indicator('instance_migrations_count', migrations)
