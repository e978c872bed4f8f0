"""workload_stabilization: even out the hosts' load by live migration.

The load of a host, per metric of ``metrics``, is read from its host
metric (``instance_metrics`` maps each to one: CPU in percent of the
host's vcpus, RAM in KiB) and taken as a fraction of what the host has
(its vcpus, its memory). When the standard deviation of one metric's
loads over the enabled, up hosts exceeds its ``thresholds`` entry, the
strategy live-migrates running or paused servers, one at a time, each
time the move that lowers the weighted sum of the metrics' standard
deviations most, until every metric is at or below its threshold or no
move helps any more. A server's share of a host's load comes from its
own metric (CPU in percent of its vcpus, RAM in MB).

Watcher 17 sorts candidate moves once, each weighed against the cluster
before any move and against ``retry_count`` random destinations, then
replays them in that order: many of its moves undo part of the one
before. Here each move is weighed against the cluster as the plan leaves
it, so the threshold is reached with fewer migrations and in one pass
(the objective after a move costs O(1): see load_spread).

Where this differs from Watcher, on purpose:
- Watcher stops once any one metric is below its threshold, which with
  two metrics can leave the other as unbalanced as it started; the plan
  here ends when no metric is above its threshold, the state in which
  the next audit would not act.
- ``standard_deviation_before_audit`` is the weighted objective, as
  ``..._after_audit`` is (Watcher reports the first metric above its
  threshold before, the weighted sum after: the same figure for one
  metric of weight 1, as by default), and both report the cluster as it
  is when nothing needs to move (Watcher reports 0 and 0).
- ``host_choice`` and ``retry_count`` keep Watcher's values and say how
  wide the search is, never random: ``fullsearch`` weighs every
  destination at every move; ``retry`` and ``cycle`` weigh the least
  loaded ones with room for the server (at least ``retry_count`` of
  them), more only when none of those helps. With room: the least
  loaded hosts are often idle but full by allocation, and a search
  among them alone widens again and again, then stops above the
  threshold although other hosts could take the load.
- Hosts kept for failover or on maintenance neither receive servers nor
  count in the balance; nor does a host without the metrics.
- A host's load is at least what its servers use: a saturated host's
  metric stops at 100 % while its servers ask for more, and Watcher,
  taking the metric alone, leaves such hosts the busiest of the cluster.

Watcher plans this strategy's actions with its ``workload_stabilization``
planner (``planner`` below names it).
"""

from oslo_log import log

from watcher_ha.decision_engine.datasources import base as datasources
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import load_spread
from watcher_ha.decision_engine.strategy import moves as moves_mod
from watcher_ha.decision_engine.strategy import parameter_specs

LOG = log.getLogger(__name__)

LOAD_METRICS = ('instance_cpu_usage', 'instance_ram_usage')
HOST_CHOICES = ('cycle', 'retry', 'fullsearch')
# Hosts on each side the search starts with, before it widens.
SEARCH_WIDTH = 4
SEARCH_MAX_WIDTH = 64

_BOUNDED = {'type': 'number', 'minimum': 0, 'maximum': 1}
PROPERTIES = {
    'metrics': {
        'description': 'Metrics used as rates of cluster loads.',
        'type': 'array',
        'items': {'type': 'string', 'enum': list(LOAD_METRICS)},
        'default': ['instance_cpu_usage']},
    'thresholds': {
        'description': 'Dict where key is a metric and value is a trigger '
                       'value.',
        'type': 'object',
        'properties': {'instance_cpu_usage': dict(_BOUNDED),
                       'instance_ram_usage': dict(_BOUNDED)},
        'default': {'instance_cpu_usage': 0.1,
                    'instance_ram_usage': 0.1}},
    'weights': {
        'description': 'These weights used to calculate common standard '
                       'deviation. Name of weight contains meter name and '
                       '_weight suffix.',
        'type': 'object',
        'properties': {'instance_cpu_usage_weight': dict(_BOUNDED),
                       'instance_ram_usage_weight': dict(_BOUNDED)},
        'default': {'instance_cpu_usage_weight': 1.0,
                    'instance_ram_usage_weight': 1.0}},
    'instance_metrics': {
        'description': 'Mapping to get hardware statistics using instance '
                       'metrics',
        'type': 'object',
        'default': {'instance_cpu_usage': 'host_cpu_usage',
                    'instance_ram_usage': 'host_ram_usage'}},
    'host_choice': {
        'description': "Method of host's choice. There are cycle, retry "
                       'and fullsearch methods. Cycle will iterate hosts '
                       'in cycle. Retry will get some hosts random (count '
                       'defined in retry_count option). Fullsearch will '
                       'return each host from list.',
        'type': 'string', 'default': 'retry'},
    'retry_count': {
        'description': 'Count of random returned hosts',
        'type': 'number', 'minimum': 1, 'default': 1},
    'periods': {
        'description': 'These periods are used to get statistic '
                       'aggregation for instance and host metrics. The '
                       'period is simply a repeating interval of time '
                       'into which the samples are grouped for '
                       'aggregation. Watcher uses only the last period of '
                       'all received ones.',
        'type': 'object',
        'properties': {
            'instance': {'type': 'integer', 'minimum': 0},
            'compute_node': {'type': 'integer', 'minimum': 0},
            'node': {'type': 'integer', 'minimum': 0, 'default': 0}},
        'default': {'instance': 720, 'compute_node': 600, 'node': 0}},
    'aggregation_method': parameter_specs.aggregation_method(),
    'granularity': parameter_specs.granularity(minimum=0),
}


class WorkloadStabilization(base.Strategy):
    name = 'workload_stabilization'
    display_name = 'Workload stabilization'
    goal = 'workload_balancing'
    # As in Watcher, this strategy's plans go to the workload_stabilization
    # planner, whatever [watcher_decision_engine] planner says.
    planner = 'workload_stabilization'
    data_models = ('compute',)
    parameters_spec = moves_mod.parameters_spec(PROPERTIES)

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        inputs.require_metrics(metrics, self.name, ', '.join(
            parameters['metrics'] or LOAD_METRICS))
        settings = _Settings(parameters)
        loads = _Loads(cluster, settings, metrics, self.protected_hosts)
        spread = loads.spread()
        before = spread.objective()
        plan = moves_mod.Moves(cluster, parameters, self.protected_hosts)
        if loads.above_threshold(spread):
            _balance(loads, spread, plan, settings)
        after = spread.objective()
        solution = self.new_solution()
        if plan.made and moves_mod.improved_enough(before, after,
                                                   parameters):
            plan.add_to(solution)
            made = len(plan.made)
        else:
            if plan.made:
                LOG.info('workload_stabilization: %d migrations would take '
                         'the standard deviation from %.4f to %.4f, less '
                         'than min_improvement; proposing none',
                         len(plan.made), before, after)
            made, after = 0, before
        solution.set_indicator('instance_migrations_count', made)
        solution.set_indicator('standard_deviation_before_audit', before)
        solution.set_indicator('standard_deviation_after_audit', after)
        solution.set_indicator('instances_count', len(cluster.instances))
        return solution


def _balance(loads, spread, plan, settings):
    """Move servers until no metric is above its threshold, no move
    helps, or the budget is spent."""
    hostnames = loads.hostnames

    def allowed(instance, h):
        return plan.can_move(instance, hostnames[h])

    def accept(instance, source, destination):
        plan.move(instance, hostnames[destination], 'live')

    width = SEARCH_WIDTH
    if settings.host_choice == 'retry':
        width = max(width, int(settings.retry_count))
    def room(h):
        return tuple(plan.free(hostnames[h], r) for r in moves_mod.RESOURCES)

    search = load_spread.Search(
        spread, loads.movable(), loads.destinations(plan), allowed, accept,
        width=width, max_width=SEARCH_MAX_WIDTH,
        every_destination=settings.host_choice == 'fullsearch',
        room=room, need=moves_mod.need_of)
    while loads.above_threshold(spread) and plan.budget_left() != 0:
        if not search.step():
            break


class _Settings:
    """The audit's parameters, checked beyond what the schema says."""

    def __init__(self, parameters):
        self.metrics = list(dict.fromkeys(parameters['metrics']))
        if not self.metrics:
            raise base.StrategyError(
                'metrics is empty: give one or both of %s'
                % ', '.join(LOAD_METRICS))
        self.thresholds = self._per_metric(parameters['thresholds'],
                                           'thresholds', '%s')
        self.weights = self._per_metric(parameters['weights'], 'weights',
                                        '%s_weight')
        self.host_metrics = {}
        for metric in self.metrics:
            host_metric = parameters['instance_metrics'].get(metric)
            if host_metric not in datasources.HOST_METRICS:
                raise base.StrategyError(
                    'instance_metrics must map %s to a host metric (one '
                    'of %s), not %r' % (metric, ', '.join(sorted(
                        datasources.HOST_METRICS)), host_metric))
            self.host_metrics[metric] = host_metric
        self.host_choice = parameters['host_choice']
        if self.host_choice not in HOST_CHOICES:
            raise base.StrategyError('host_choice must be one of %s, not %r'
                                     % (', '.join(HOST_CHOICES),
                                        self.host_choice))
        self.retry_count = parameters['retry_count']
        self.granularity = parameters['granularity']
        self.periods = parameter_specs.per_resource(
            'periods', parameters['periods'], PROPERTIES['periods'])
        self.aggregates = parameter_specs.per_resource(
            'aggregation_method', parameters['aggregation_method'],
            PROPERTIES['aggregation_method'])
        for kind, aggregate in self.aggregates.items():
            if aggregate not in datasources.AGGREGATES:
                raise base.StrategyError(
                    'aggregation_method %s must be one of %s, not %r'
                    % (kind, ', '.join(datasources.AGGREGATES), aggregate))

    def _per_metric(self, given, parameter, key):
        values = {}
        for metric in self.metrics:
            if (key % metric) not in given:
                raise base.StrategyError(
                    '%s has no %s: give one for each of metrics'
                    % (parameter, key % metric))
            values[metric] = float(given[key % metric])
        return values


class _Loads:
    """The hosts whose load is balanced and the servers that may move,
    each with its share of every metric, read with one query per
    metric."""

    def __init__(self, cluster, settings, metrics, protected):
        self.cluster = cluster
        self.settings = settings
        # By name: the model's own order depends on the hash seed, and
        # among moves that are as good the first found is made.
        nodes = [node for node in sorted(cluster.nodes.values(),
                                         key=lambda node: node.hostname)
                 if moves_mod.is_destination(node, protected)
                 and node.vcpus > 0 and node.memory_mb > 0]
        host_values = {metric: self._read_hosts(metrics, metric, nodes)
                       for metric in settings.metrics}
        self.nodes = [node for node in nodes
                      if all(node.hostname in host_values[metric]
                             for metric in settings.metrics)]
        if len(self.nodes) < len(nodes):
            LOG.warning('workload_stabilization: %d of %d hosts have no '
                        'data for %s and are left out of the balance',
                        len(nodes) - len(self.nodes), len(nodes),
                        ', '.join(settings.host_metrics.values()))
        self.hostnames = [node.hostname for node in self.nodes]
        self.host_values = host_values
        self.servers = [instance for node in self.nodes
                        for instance in cluster.instances_on(node.hostname)]
        self.server_values = {
            metric: self._read_servers(metrics, metric)
            for metric in settings.metrics}

    def _read_hosts(self, metrics, metric, nodes):
        host_metric = self.settings.host_metrics[metric]
        return inputs.of_hosts(
            metrics, host_metric, nodes, hint='(the host side of %s)' % metric,
            period=self.settings.periods['compute_node'],
            aggregate=self.settings.aggregates['compute_node'],
            granularity=self.settings.granularity)

    def _read_servers(self, metrics, metric):
        return inputs.of_servers(
            metrics, metric, self.servers,
            period=self.settings.periods['instance'],
            aggregate=self.settings.aggregates['instance'],
            granularity=self.settings.granularity)

    def capacity(self, metric):
        if metric == 'instance_cpu_usage':
            return [float(node.vcpus) for node in self.nodes]
        return [float(node.memory_mb) for node in self.nodes]

    def spread(self):
        """The hosts' loads as fractions of what they have: the host
        metric (host CPU in percent, host RAM in KiB, as Watcher reads
        them), or what the host's servers use when that is more. A host
        metric stops at 100 % while its servers can ask for more; taking
        it alone, a move off a saturated host would seem to relieve it
        more than it does, and the plan would leave it the busiest."""
        loads, capacity, weights = [], [], []
        for j, metric in enumerate(self.settings.metrics):
            cap = self.capacity(metric)
            scale = _host_scale(self.settings.host_metrics[metric])
            values = self.host_values[metric]
            row = [values[hostname] * scale for hostname in self.hostnames]
            if metric != 'instance_cpu_usage':
                row = [x / c for x, c in zip(row, cap, strict=True)]
            used = self._servers_use(j)
            row = [max(x, used[h] / cap[h]) for h, x in enumerate(row)]
            loads.append(row)
            capacity.append(cap)
            weights.append(self.settings.weights[metric])
        return load_spread.Spread(loads, capacity, weights)

    def above_threshold(self, spread):
        return any(spread.deviation(j) > self.settings.thresholds[metric]
                   for j, metric in enumerate(self.settings.metrics))

    def _amount(self, instance, metric):
        """What ``instance`` takes of ``metric`` (CPU cores, RAM MB), or
        None without data."""
        value = self.server_values[metric].get(instance.uuid)
        if value is None:
            return None
        if metric == 'instance_cpu_usage':
            return value / 100.0 * instance.vcpus
        return float(value)

    def _servers_use(self, j):
        """Per host index, what its servers with data use of metric
        j."""
        metric = self.settings.metrics[j]
        index = {hostname: h for h, hostname in enumerate(self.hostnames)}
        used = [0.0] * len(self.hostnames)
        for instance in self.servers:
            used[index[instance.host]] += self._amount(instance, metric) or 0
        return used

    def movable(self):
        """{host index: {uuid: (instance, amounts)}}: the servers that
        Nova live-migrates, with what they take of each metric; a server
        without data for one of them stays."""
        index = {hostname: h for h, hostname in enumerate(self.hostnames)}
        servers = {h: {} for h in range(len(self.hostnames))}
        for instance in self.servers:
            if moves_mod.migration_type(instance) != 'live':
                continue
            amounts = tuple(self._amount(instance, metric)
                            for metric in self.settings.metrics)
            if None not in amounts:
                servers[index[instance.host]][instance.uuid] = (
                    instance, amounts)
        return servers

    def destinations(self, plan):
        hostnames = set(plan.destinations())
        return [h for h, hostname in enumerate(self.hostnames)
                if hostname in hostnames]


def _host_scale(host_metric):
    """What turns a host metric's value into the load's unit: percent
    into a fraction, KiB into MB (Watcher's conversions)."""
    return {'host_cpu_usage': 0.01, 'host_ram_usage': 1 / 1024.0}.get(
        host_metric, 1.0)
