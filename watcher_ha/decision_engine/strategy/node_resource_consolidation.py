"""node_resource_consolidation: empty compute nodes by what their servers
are allocated (no metrics), so that fewer nodes hold them all.

The nodes are tried in order (fewest servers first, see
``consolidation.emptying_order``); a node is emptied only if every one
of its servers has room, by Placement's count, on the nodes that stay,
and a node that receives servers is not emptied. Watcher 17 moves a
node's servers even when some of them fit nowhere, and checks vcpus and
memory only; it also takes 5 minutes and more where this takes a second.

``host_choice`` says who picks each server's destination, as in Watcher:

``auto``
    Nova's scheduler. The plan disables the compute service of every
    node to be emptied and of every node already empty (reason
    ``Watcher node resource consolidation strategy``), so that the
    scheduler can only pick the nodes that stay, then migrates the
    servers without naming a destination, then enables again the
    services it disabled. If a node kept for failover or on maintenance
    is enabled in Nova, the scheduler could pick it: the migrations then
    name their destinations, as with ``specify``.
``specify``
    The strategy: each migration names the node found for it, and no
    service changes state.

Watcher runs this strategy's plans with its ``node_resource_consolidation``
planner (``planner`` below): the disables first, then the migrations,
then the enables. Nodes kept for failover or on maintenance are neither
emptied nor destinations; servers Nova cannot migrate in their state
keep their node in use.
"""

import heapq

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import consolidation
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import moves as moves_mod

DISABLED_REASON = 'Watcher node resource consolidation strategy'
HOST_CHOICES = ('auto', 'specify')


class NodeResourceConsolidation(base.Strategy):
    name = 'node_resource_consolidation'
    display_name = 'Node Resource Consolidation strategy'
    goal = 'server_consolidation'
    # The planner Watcher uses for this strategy's solutions, whatever
    # [watcher_planner] planner says.
    planner = 'node_resource_consolidation'
    data_models = ('compute',)
    parameters_spec = moves_mod.parameters_spec({
        'host_choice': {
            'description': "The way to select the server migration "
                           "destination node. The value 'auto' means that "
                           "Nova scheduler selects the destination node, "
                           "and 'specify' means the strategy specifies "
                           "the destination.",
            'type': 'string', 'default': 'auto'},
    })

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        host_choice = parameters.get('host_choice', 'auto')
        if host_choice not in HOST_CHOICES:
            raise base.StrategyError(
                "host_choice %r is not one of 'auto' (Nova's scheduler "
                "picks each destination) and 'specify' (the strategy "
                "does)" % host_choice)
        protected = frozenset(self.protected_hosts)
        name_destinations = host_choice == 'specify' or any(
            cluster.nodes[h].status == 'enabled' for h in protected
            if h in cluster.nodes)
        plan, already_empty, emptied = _pack(cluster, parameters,
                                             protected)
        made = plan.made
        while not name_destinations:
            # Nova's scheduler, not the packing, picks each destination:
            # a node stays unless Nova finds a host for each of its
            # servers among the nodes the plan leaves enabled. One that
            # stays is one more host for the others.
            stranded = _stranded_by_nova(
                cluster, made, protected, set(already_empty + emptied))
            if not stranded:
                break
            emptied = [h for h in emptied if h not in stranded]
            made = [move for move in made if move[1] not in stranded]
        solution = self.new_solution()
        # The objective: nodes holding servers (of all nodes: a down or
        # protected one, never emptied, may be empty too).
        in_use = sum(1 for h in cluster.nodes if cluster.instances_on(h))
        if not emptied or not moves_mod.improved_enough(
                in_use, in_use - len(emptied), parameters):
            consolidation.set_indicators(solution, len(cluster.nodes), 0, 0)
            return solution
        hidden = [] if host_choice == 'specify' else [
            cluster.nodes[h] for h in already_empty + emptied
            if cluster.nodes[h].status == 'enabled']
        for node in hidden:
            consolidation.service_state(solution, node, 'disabled',
                                        DISABLED_REASON)
        _add_migrations(solution, made, name_destinations)
        for node in hidden:
            consolidation.service_state(solution, node, 'enabled')
        consolidation.set_indicators(solution, len(cluster.nodes),
                                     len(emptied), len(made))
        return solution


def _pack(cluster, parameters, protected):
    """(the plan, the nodes already empty, the nodes it empties)."""
    plan = moves_mod.Moves(cluster, parameters, protected)
    candidates = [h for h, n in cluster.nodes.items()
                  if n.state == 'up' and h not in protected]
    order = consolidation.emptying_order(
        plan, candidates, {h: plan.used[h]['vcpus'] for h in candidates})
    destinations = [h for h in reversed(order)
                    if moves_mod.is_destination(cluster.nodes[h], protected)]
    packer = consolidation.Packer(plan, destinations)
    already_empty = [h for h in order if not plan.instances_on(h)]
    # Sending servers to an empty node would only swap one node in use
    # for another.
    for hostname in already_empty:
        packer.close(hostname)
    emptied = [h for h in order
               if plan.instances_on(h) and packer.empty(h)]
    return plan, already_empty, emptied


def _stranded_by_nova(cluster, made, protected, hidden):
    """The sources of the migrations ``made`` (Moves.made) for which
    Nova's scheduler, run in their order, finds no host: it filters the
    enabled, up nodes with room (Placement's count) and, by default,
    weighs them by free memory, most first (its RAM weigher spreads).
    ``hidden`` are the nodes the plan disables first."""
    nova = moves_mod.Moves(cluster, {}, protected)
    # Most free memory first; an entry is stale when the node's free
    # memory changed since it was pushed.
    heap = [(-nova.free(h, 'memory_mb'), h) for h in nova.destinations()
            if h not in hidden]
    heapq.heapify(heap)
    stranded = set()
    for instance, source, _destination, kind in made:
        passed, found = [], None
        while heap:
            free, hostname = heapq.heappop(heap)
            if -free != nova.free(hostname, 'memory_mb'):
                continue
            passed.append((free, hostname))
            if hostname != source and nova.fits(instance, hostname):
                found = hostname
                break
        for entry in passed:
            heapq.heappush(heap, entry)
        if found is None:
            stranded.add(source)
            continue
        nova.move(instance, found, kind)
        heapq.heappush(heap, (-nova.free(found, 'memory_mb'), found))
        if source not in hidden:
            heapq.heappush(heap, (-nova.free(source, 'memory_mb'), source))
    return stranded


def _add_migrations(solution, made, name_destinations):
    """One migrate action per move of ``made`` (Moves.made); without a
    destination_node (Nova's scheduler picks it) unless
    ``name_destinations``."""
    for instance, source, destination, kind in made:
        parameters = {'resource_id': instance.uuid,
                      'resource_name': instance.name,
                      'migration_type': kind, 'source_node': source}
        if name_destinations:
            parameters['destination_node'] = destination
        solution.add_action('migrate', parameters,
                            resource_id=instance.uuid)
