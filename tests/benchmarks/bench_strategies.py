#!/usr/bin/env python3
"""Every strategy on the reference clusters, next to OpenStack Watcher 17
measured in the same run on the same input.

    .venv/bin/python tests/benchmarks/bench_strategies.py \\
        [--sizes 100x2000,500x10000,300x6000,800x16000] \\
        [--strategies a,b] [--seed 1] [--timeout 300] [--repeat 1] \\
        [--watcher-venv .bench/watcher17-venv | --no-watcher]

A size with a reference cluster (tests/data/reference/clusters/:
100x2000, 500x10000, the input Watcher 17 was first benchmarked on) runs
on it; any other size on a cluster that tests/cluster_generator.py makes
from ``--seed`` (several host sizes, idle hosts full by allocation, hot
spots, disabled compute services). The description is written to a
temporary directory that both sides read. Both sides get the cluster's
static metrics (ours through a StaticDatasource, Watcher's through
watcher17_strategies.py's) and each strategy's default parameters
(host_maintenance: the first node).

For each strategy and size it prints the time of the strategy alone
(the median of --repeat runs of each side),
the actions by type, and the outcome of applying the plan's migrations to
the cluster: hosts left empty, max and min CPU load of the hosts still
holding servers (percent of their vcpus, from the servers' static CPU
usage) and the standard deviation of that load. Watcher runs in its own
virtualenv (made on first use) with a time cap per strategy.

The hardware readings the thermal, airflow and noisy-neighbour
strategies need (outlet and inlet temperature, airflow, power per host,
L3 cache use per server) are derived from each cluster by
hardware_metrics.py and added to the description both sides read. For
those three the outcome is what the plan does about the hosts it is
meant to relieve: outlet_temperature and uniform_airflow, the hosts at
or above the default threshold that give servers to hosts under it
(relieved) and the vCPUs moved so; noisy_neighbor, the hosts where a
hurt server sits next to a noisy one that send a noisy one away.
"""

import argparse
import collections
import gc
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import cluster_generator  # noqa: E402
from tests import static_metrics  # noqa: E402
from tests import strategy_clusters  # noqa: E402
from tests.benchmarks import hardware_metrics  # noqa: E402
from tests.benchmarks import watcher17  # noqa: E402
from watcher_ha.common import parameters as parameters_mod  # noqa: E402
from watcher_ha.common import plugins  # noqa: E402
from watcher_ha.decision_engine.datasources import metrics  # noqa: E402

WATCHER_SCRIPT = pathlib.Path(__file__).resolve().with_name(
    'watcher17_strategies.py')
# The strategies watcher17_strategies.py drives in Watcher.
WATCHER_DRIVES = ('vm_workload_consolidation', 'basic', 'workload_balance',
                  'host_maintenance', 'workload_stabilization',
                  'node_resource_consolidation', 'outlet_temperature',
                  'uniform_airflow', 'noisy_neighbor')
HOT_NODES = ('outlet_temperature', 'uniform_airflow')
# Not optimisation strategies: they react to failures, replay a plan
# the operator gives (actuator) or demonstrate the pipeline (dummy*).
NOT_OPTIMISING = ('host_recovery', 'instance_recovery', 'process_recovery',
                  'actuator', 'dummy', 'dummy_with_resize',
                  'dummy_with_scorer')
# They plan on more than the reference clusters hold (a storage model,
# Ironic's nodes, servers of preemptible flavors with their ages).
NOT_ON_COMPUTE_ALONE = ('saving_energy', 'storage_capacity_balance',
                        'workload_preemption', 'zone_migration')


def description(n_nodes, n_instances, seed, workdir):
    """(path, cluster description, where it comes from) of the cluster
    N x M with the hardware readings, written to ``workdir`` for
    Watcher's side: the reference cluster of that size, or the
    generator's."""
    if strategy_clusters.reference_path(n_nodes, n_instances).exists():
        cluster = strategy_clusters.reference_description(n_nodes,
                                                          n_instances)
        origin = 'reference cluster'
    else:
        cluster = cluster_generator.generate(n_nodes, n_instances, seed)
        origin = 'generated, seed %d' % seed
    hardware_metrics.add(cluster)
    path = pathlib.Path(workdir) / ('cluster_%d_%d.json' % (n_nodes,
                                                            n_instances))
    with open(path, 'w') as f:
        json.dump(cluster, f, separators=(',', ':'), sort_keys=True)
    return path, cluster, origin


class CacheHistoryDatasource(static_metrics.StaticDatasource):
    """The static values, but the L3 cache use a server had before the
    change counts in a mean over a longer period, as in a time series."""

    def __init__(self, values, before):
        super().__init__(values)
        self.before = before

    def statistics(self, metric, resources, period, aggregate,
                   granularity):
        out = super().statistics(metric, resources, period, aggregate,
                                 granularity)
        if (metric != hardware_metrics.L3_CACHE
                or period <= hardware_metrics.CHANGED_AGO):
            return out
        return {uuid: hardware_metrics.cache_mean(
                    now, self.before[uuid][metric], period)
                for uuid, now in out.items()}


def migrations(cluster, actions):
    """[(server uuid, source hostname, destination hostname or None)] of
    the plan's migrations (Watcher's outlet_temperature and
    noisy_neighbor name nodes by uuid)."""
    names = {h['uuid']: h['name'] for h in cluster['hosts']}
    where = {i['uuid']: i['host'] for i in cluster['instances']}
    moved = []
    for action in actions:
        if action['action_type'] == 'migrate':
            parameters = action['input_parameters']
            destination = parameters.get('destination_node')
            destination = names.get(destination, destination)
            uuid = parameters['resource_id']
            moved.append((uuid, where[uuid], destination))
            where[uuid] = destination
    return moved


def relieved(name, cluster, actions):
    """What the plan of a thermal, airflow or noisy-neighbour strategy
    does about the hosts it is meant to relieve."""
    vcpus = {i['uuid']: i['vcpus'] for i in cluster['instances']}
    moved = migrations(cluster, actions)
    if name == 'noisy_neighbor':
        pairs = hardware_metrics.noisy_pairs(cluster)
        done = {source for uuid, source, destination in moved
                if uuid in pairs.get(source, ()) and destination
                not in pairs}
        return 'noisy hosts %d relieved %d' % (len(pairs), len(done))
    hot, _threshold = hardware_metrics.hot_hosts(cluster, name)
    cooling = [(source, vcpus[uuid]) for uuid, source, destination in moved
               if source in hot and destination is not None
               and destination not in hot]
    return 'hot %d relieved %d vcpus off %d' % (
        len(hot), len({source for source, _ in cooling}),
        sum(v for _, v in cooling))


def outcome(cluster, actions):
    """What the plan's migrations leave: hosts empty and the CPU load of
    the others. A migration that names no destination (Nova's scheduler
    chooses) takes its server off its host and counts it nowhere."""
    where = {i['uuid']: i['host'] for i in cluster['instances']}
    for uuid, _source, destination in migrations(cluster, actions):
        where[uuid] = destination
    vcpus = {h['name']: h['vcpus'] for h in cluster['hosts']}
    busy = collections.Counter()
    count = collections.Counter()
    usage = cluster['metrics']['instances']
    for instance in cluster['instances']:
        host = where[instance['uuid']]
        if host is None:
            continue
        count[host] += 1
        busy[host] += instance['vcpus'] * usage[instance['uuid']][
            'instance_cpu_usage'] / 100.0
    loads = [100.0 * busy[h] / vcpus[h] for h in vcpus if count[h]]
    return {'empty_hosts': sum(1 for h in vcpus if not count[h]),
            'max_load': max(loads), 'min_load': min(loads),
            'stdev_load': statistics.pstdev(loads)}


def stranded(cluster, actions):
    """How many of the plan's migrations that name no destination would
    find no host with a Nova that, in the plan's order, filters the
    enabled nodes (as the plan's service changes leave them) with room
    by Placement's count and picks the one with the most free memory
    (its default RAM weigher spreads)."""
    resources = (('vcpus', 'vcpu_reserved', 'vcpu_ratio'),
                 ('memory_mb', 'memory_mb_reserved', 'memory_ratio'),
                 ('disk_gb', 'disk_gb_reserved', 'disk_ratio'))
    enabled = {h['name']: h['status'] == 'enabled' and h['state'] == 'up'
               for h in cluster['hosts']}
    names = {h['uuid']: h['name'] for h in cluster['hosts']}
    free = {h['name']: [(h[total] - h[reserved]) * h[ratio]
                        for total, reserved, ratio in resources]
            for h in cluster['hosts']}
    servers = {i['uuid']: i for i in cluster['instances']}
    where = {uuid: i['host'] for uuid, i in servers.items()}
    for server in cluster['instances']:
        for r, (total, _, _) in enumerate(resources):
            free[server['host']][r] -= server[total]
    count = 0
    for action in actions:
        parameters = action['input_parameters']
        if action['action_type'] == 'change_nova_service_state':
            host = names.get(parameters['resource_id'],
                             parameters.get('resource_name'))
            enabled[host] = parameters['state'] == 'enabled'
            continue
        if action['action_type'] != 'migrate':
            continue
        server = servers[parameters['resource_id']]
        need = [server[total] for total, _, _ in resources]
        destination = parameters.get('destination_node')
        if destination is None:
            fitting = [h for h, up in enabled.items()
                       if up and h != where[server['uuid']] and all(
                           f >= n for f, n in zip(free[h], need,
                                                  strict=True))]
            if not fitting:
                count += 1
                continue
            destination = max(fitting, key=lambda h: (free[h][1], h))
        destination = names.get(destination, destination)
        for r, n in enumerate(need):
            free[where[server['uuid']]][r] += n
            free[destination][r] -= n
        where[server['uuid']] = destination
    return count


def by_type(actions):
    return dict(collections.Counter(a['action_type'] for a in actions))


def run_ours(name, cls, goals, cluster, snapshot, values):
    extra = ({'maintenance_node': cluster['hosts'][0]['name']}
             if name == 'host_maintenance' else {})
    checked = parameters_mod.check(cls.parameters_spec, extra)
    strategy = cls(goals[cls.goal])
    audit_metrics = metrics.AuditMetrics([CacheHistoryDatasource(
        values, cluster['metrics']['instances_before'])])
    # As on Watcher's side (watcher17_strategies.py): what building the
    # cluster left for the collector is not the strategy's time.
    gc.collect()
    started = time.perf_counter()
    cpu_started = time.process_time()
    try:
        solution = strategy.execute({}, checked,
                                    models={'compute': snapshot},
                                    metrics=audit_metrics)
    except metrics.MetricUnavailable as err:
        return {'status': 'needs metrics the reference clusters lack (%s)'
                % err}
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    actions = [{'action_type': a.action_type,
                'input_parameters': a.input_parameters}
               for a in solution.actions]
    return {'status': 'ok', 'seconds': seconds,
            'cpu_seconds': cpu_seconds, 'actions': actions,
            'indicators': dict(solution.indicator_values)}


def run_watcher(python, path, name, timeout):
    try:
        done = subprocess.run(
            [str(python), str(WATCHER_SCRIPT), str(path), name,
             '--timeout', str(timeout)],
            capture_output=True, text=True, timeout=timeout + 120)
    except subprocess.TimeoutExpired:
        return {'status': 'timeout', 'seconds': timeout}
    if done.returncode:
        return {'status': 'error: %s' % done.stderr.strip()[-300:]}
    result = json.loads(done.stdout)
    if result['status'] == 'error':
        result['status'] = 'error: %s' % result['error'][-300:]
    return result


def median_of(repeat, run):
    """``run()``'s result with the median of ``repeat`` runs' seconds
    (the first failure, if one fails): on a loaded machine one run of a
    fraction of a second says little."""
    results = []
    for _ in range(repeat):
        result = run()
        if result['status'] != 'ok':
            return result
        results.append(result)
    return dict(results[0], **{key: statistics.median(
        r[key] for r in results) for key in ('seconds', 'cpu_seconds')})


def cpu_share(ours, theirs):
    """Our CPU time in percent of Watcher's, as text: on a loaded
    machine the steadier figure (both run single-threaded)."""
    if 'cpu_seconds' not in theirs:
        return ''
    return ' (%.1f%% of its CPU time)' % (
        100.0 * ours['cpu_seconds'] / theirs['cpu_seconds'])


def row(who, name, result, cluster):
    if result['status'] != 'ok':
        shown = result['status']
        if result['status'] == 'timeout':
            shown = 'did not finish in %.0f s' % result['seconds']
        return '  %-8s %s' % (who, shown)
    if name in HOT_NODES or name == 'noisy_neighbor':
        objective = relieved(name, cluster, result['actions'])
    else:
        after = outcome(cluster, result['actions'])
        objective = ('empty %4d  load max %5.1f min %5.1f sd %5.2f' % (
            after['empty_hosts'], after['max_load'], after['min_load'],
            after['stdev_load']))
        if any(a['action_type'] == 'migrate'
               and 'destination_node' not in a['input_parameters']
               for a in result['actions']):
            objective += '  Nova finds no host for %d' % stranded(
                cluster, result['actions'])
    return '  %-8s %9.3f s (CPU %8.3f s) %6d actions %-44s %s' % (
        who, result['seconds'], result['cpu_seconds'],
        len(result['actions']),
        json.dumps(by_type(result['actions']), sort_keys=True), objective)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--sizes',
                        default='100x2000,500x10000,300x6000,800x16000')
    parser.add_argument('--seed', type=int, default=1,
                        help='of the generated clusters')
    parser.add_argument('--strategies', default='',
                        help='comma-separated; default: every installed '
                             'optimisation strategy')
    parser.add_argument('--timeout', type=float, default=300.0,
                        help='seconds Watcher gets per strategy')
    parser.add_argument('--repeat', type=int, default=1,
                        help='runs of each side per strategy and size; '
                             'the median time is shown')
    parser.add_argument('--watcher-venv', default=str(watcher17.VENV))
    parser.add_argument('--no-watcher', action='store_true')
    args = parser.parse_args()
    goals = plugins.load_classes(plugins.GOALS)
    installed = plugins.load_classes(plugins.STRATEGIES)
    names = ([n for n in args.strategies.split(',') if n]
             or sorted(n for n in installed if n not in NOT_OPTIMISING
                       and n not in NOT_ON_COMPUTE_ALONE))
    python = None
    if not args.no_watcher:
        python, why = watcher17.python(args.watcher_venv)
        if python is None:
            print('Watcher 17 not measured: %s' % why)
    with tempfile.TemporaryDirectory() as workdir:
        for size in args.sizes.split(','):
            n_nodes, n_instances = (int(x) for x in size.split('x'))
            path, cluster, origin = description(n_nodes, n_instances,
                                                args.seed, workdir)
            snapshot, values = strategy_clusters.from_reference(cluster)
            before = outcome(cluster, [])
            print('\n== %d hosts, %d servers (%s): before any plan: '
                  'empty %d, load max %.1f min %.1f sd %.2f' % (
                      n_nodes, n_instances, origin, before['empty_hosts'],
                      before['max_load'], before['min_load'],
                      before['stdev_load']), flush=True)
            for name in names:
                print('%s' % name, flush=True)
                ours = median_of(args.repeat, lambda: run_ours(
                    name, installed[name], goals, cluster, snapshot, values))
                print(row('ours', name, ours, cluster), flush=True)
                if python is not None and name in WATCHER_DRIVES:
                    theirs = median_of(args.repeat, lambda: run_watcher(
                        python, path, name, args.timeout))
                    print(row('watcher', name, theirs, cluster), flush=True)
                    if ours['status'] == 'ok' and 'seconds' in theirs \
                            and theirs['status'] != 'timeout':
                        print('  ours takes %.1f%% of Watcher\'s time%s%s'
                              % (100.0 * ours['seconds'] / theirs['seconds'],
                                 cpu_share(ours, theirs),
                                 '' if theirs['status'] == 'ok'
                                 else ' to its error'), flush=True)


if __name__ == '__main__':
    main()
