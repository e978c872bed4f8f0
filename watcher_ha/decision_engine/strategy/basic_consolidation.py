"""basic: empty the least busy compute nodes onto the busiest ones.

Nodes are ranked by their CPU usage (``host_cpu_usage``). The least busy
node with servers is tried first: its servers, busiest first
(``instance_cpu_usage``), each go live to the first node of the ranking
that has room for it, so the busiest nodes fill up first. A node all of
whose servers find room is emptied and its compute service disabled;
then the next least busy node is tried, and so on up the ranking.

Watcher's basic does the same walk but moves whatever fits off each
node, even when others stay behind: those migrations free no node and
take room the next nodes could have used. Here a node moves all its
servers or none, so every migration helps release a node, and a node
that stays in use (some server fits nowhere, or is not running) remains
a destination for the busier nodes after it. Each server's destination
is found through a FirstFit tree, not by scanning every node: Watcher's
scan (servers x nodes, each with a model lookup) takes 9 s for 100
nodes and does not finish at 500.

With ``[watcher_strategies.basic] check_optimize_metadata``, a server
whose metadata holds ``optimize`` with a value that is not a true
boolean (``false``, ``no``, ``0``, anything else) stays where it is, so
its node is not emptied. Watcher also keeps in place every server that
has metadata but no ``optimize`` key; here such a server moves like one
without metadata.
"""

import functools

from oslo_config import cfg
from oslo_log import log
from oslo_utils import strutils

from watcher_ha.decision_engine.datasources import base as datasources
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import consolidation
from watcher_ha.decision_engine.strategy import first_fit
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import moves as moves_mod
from watcher_ha.decision_engine.strategy import parameter_specs

CONF = cfg.CONF
LOG = log.getLogger(__name__)

DISABLED_REASON = 'watcher_disabled'
# Watcher counts a node or server without data as fully busy: it is
# never taken for the least busy one on a guess.
BUSY_WITHOUT_DATA = 100.0


class BasicConsolidation(base.Strategy):
    name = 'basic'
    display_name = 'Basic offline consolidation'
    goal = 'server_consolidation'
    data_models = ('compute',)
    parameters_spec = moves_mod.parameters_spec({
        'migration_attempts': {
            'description': 'Maximum number of combinations to be tried by '
                           'the strategy while searching for potential '
                           'candidates. To remove the limit, set it to 0 '
                           '(by default)',
            'type': 'number', 'default': 0},
        'period': parameter_specs.period(7200),
        'granularity': parameter_specs.granularity(),
        'aggregation_method': parameter_specs.aggregation_method(),
    })

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        inputs.require_metrics(metrics, self.name,
                               'host_cpu_usage and instance_cpu_usage')
        node_aggregate, instance_aggregate = _aggregates(parameters)
        # Watcher's scope: nodes whose compute service is up, enabled or
        # disabled; only the enabled ones count as the cluster's size.
        nodes = [n for n in cluster.nodes.values() if n.state == 'up'
                 and n.status in ('enabled', 'disabled')]
        busy_nodes = [n for n in nodes if cluster.instances_on(n.hostname)]
        read = dict(period=parameters['period'],
                    granularity=parameters['granularity'])
        node_usage = _busy_without_data(inputs.of_hosts(
            metrics, 'host_cpu_usage', busy_nodes, aggregate=node_aggregate,
            **read), [n.hostname for n in busy_nodes], 'host_cpu_usage')
        servers = [i for n in busy_nodes
                   for i in cluster.instances_on(n.hostname)
                   if i.state == 'active']
        server_usage = _busy_without_data(inputs.of_servers(
            metrics, 'instance_cpu_usage', servers,
            aggregate=instance_aggregate, **read),
            [i.uuid for i in servers], 'instance_cpu_usage')

        ranking = sorted(busy_nodes, key=lambda n: (
            -node_usage[n.hostname], n.hostname))
        plan = moves_mod.Moves(cluster, parameters, self.protected_hosts)
        released = _release(plan, ranking, server_usage,
                            parameters['migration_attempts'])

        solution = self.new_solution()
        enabled = sum(1 for n in nodes if n.status == 'enabled')
        in_use = len(busy_nodes)
        if not moves_mod.improved_enough(in_use, in_use - len(released),
                                         parameters):
            LOG.info('basic: releasing %d of %d nodes in use is less than '
                     'min_improvement; proposing no plan', len(released),
                     in_use)
            consolidation.set_indicators(solution, enabled, 0, 0)
            return solution
        plan.add_to(solution)
        for node in released:
            # A node already disabled keeps its operator's reason.
            if node.status == 'enabled':
                consolidation.service_state(solution, node, 'disabled',
                                            DISABLED_REASON)
        consolidation.set_indicators(solution, enabled, len(released),
                                     len(plan.made))
        return solution


def _aggregates(parameters):
    """(node aggregate, server aggregate)."""
    method = parameter_specs.per_resource(
        'aggregation_method', parameters['aggregation_method'],
        parameter_specs.aggregation_method())
    node, instance = method['compute_node'], method['instance']
    for aggregate in (node, instance):
        if aggregate not in datasources.AGGREGATES:
            raise base.StrategyError(
                'aggregation_method %r is not one the datasources know; '
                'use one of %s' % (aggregate,
                                   ', '.join(datasources.AGGREGATES)))
    return node, instance


def _busy_without_data(values, keys, metric):
    """``values`` completed for every key: those the datasource has no
    data for count as fully busy, as in Watcher."""
    missing = [k for k in keys if k not in values]
    if missing:
        LOG.warning('No %s for %d of %d (e.g. %s): counted as %.0f%% busy',
                    metric, len(missing), len(keys), missing[0],
                    BUSY_WITHOUT_DATA)
    return {k: values.get(k, BUSY_WITHOUT_DATA) for k in keys}


def _release(plan, ranking, server_usage, attempts):
    """Empty nodes from the end of ``ranking`` (least busy first) into
    the first nodes of it with room; the nodes released, in order.

    Stops after ``attempts`` nodes in a row could not be emptied (0: it
    tries every node), or when the budget is spent.
    """
    destinations = first_fit.FirstFit({
        n.hostname: [plan.free(n.hostname, r) for r in moves_mod.RESOURCES]
        for n in ranking if moves_mod.is_destination(n, plan.protected)})
    released = []
    failures = 0
    for node in reversed(ranking):
        if attempts and failures >= attempts:
            break
        if plan.budget_left() == 0:
            break
        servers = sorted(plan.instances_on(node.hostname), key=lambda i: (
            -server_usage.get(i.uuid, BUSY_WITHOUT_DATA), i.uuid))
        if _empty(node, servers, plan, destinations):
            released.append(node)
            failures = 0
        else:
            failures += 1
    return released


def may_optimize(server):
    """False for a server whose metadata says it must not be moved, when
    [watcher_strategies.basic] check_optimize_metadata is set."""
    if not CONF['watcher_strategies.basic'].check_optimize_metadata:
        return True
    metadata = server.metadata_dict
    return 'optimize' not in metadata or strutils.bool_from_string(
        metadata['optimize'], default=False)


def _empty(node, servers, plan, destinations):
    """Move all of ``servers`` off ``node``, or none; whether it did."""
    # Another process (recovery, maintenance) owns a protected node; one
    # that runs anything but active servers cannot be emptied live; one
    # that received servers in this plan is a destination now (emptying
    # it would move those twice); one holding a server its metadata
    # keeps in place stays as it is.
    if (node.hostname in plan.protected
            or any(s.state != 'active' or plan.host_of(s) != s.host
                   or not may_optimize(s) for s in servers)
            or not plan.within_budget_all(servers)):
        return False
    taken = []
    for server in servers:
        need = moves_mod.need_of(server)
        # plan.fits() checks the zone and that the target is not the
        # node itself; the room it sees does not count this trial's
        # servers yet, the tree's does.
        target = destinations.first(
            need, accept=functools.partial(plan.fits, server))
        if target is None:
            for hostname, given in taken:
                destinations.give_back(hostname, given)
            return False
        destinations.take(target, need)
        taken.append((target, need))
    for server, (target, _) in zip(servers, taken, strict=True):
        plan.move(server, target, 'live')
    # Released: it stays empty.
    if node.hostname in destinations:
        destinations.drop(node.hostname)
    return True
