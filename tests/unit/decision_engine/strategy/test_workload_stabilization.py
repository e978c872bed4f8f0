"""workload_stabilization's decisions on small hand-made clusters."""

import statistics

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.goal import workload_balancing
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import load_spread
from watcher_ha.decision_engine.strategy import workload_stabilization as ws


def strategy(protected=()):
    made = ws.WorkloadStabilization(workload_balancing.WorkloadBalancing)
    made.protected_hosts = frozenset(protected)
    return made


def run(cluster, values, protected=(), **given):
    return strategy_runs.run(ws.WorkloadStabilization, cluster,
                             static_metrics.audit_metrics(values), protected,
                             **given)


def moves(solution):
    return sorted(move[:3] for move in strategy_runs.migrations(solution))


def cpu_values(cluster, server_cpu):
    """Host and server CPU metrics (percent) consistent with where the
    servers are: ``server_cpu`` {server name: percent of its vcpus}."""
    cores = dict.fromkeys(cluster.nodes, 0.0)
    instance = {}
    for server in cluster.instances.values():
        percent = server_cpu.get(server.name, 0.0)
        instance[server.uuid] = percent
        cores[server.host] += server.vcpus * percent / 100.0
    host = {name: 100.0 * cores[name] / cluster.nodes[name].vcpus
            for name in cluster.nodes}
    return {'host_cpu_usage': host, 'instance_cpu_usage': instance}


def hot_cluster(spare_nodes=('n2', 'n3', 'n4'), **spare_values):
    """n1 runs four busy 2-vcpu servers; the others run nothing."""
    nodes = [c.node('n1', vcpus=8)] + [c.node(name, vcpus=8, **spare_values)
                                       for name in spare_nodes]
    servers = [c.server('s%d' % i, 'n1', vcpus=2) for i in range(4)]
    cluster = c.build(nodes, servers)
    return cluster, cpu_values(cluster, {'s%d' % i: 100.0
                                         for i in range(4)})


def test_spreads_the_busy_host_over_the_idle_ones():
    cluster, values = hot_cluster()
    solution = run(cluster, values)
    assert [(src, dst) for _name, src, dst in moves(solution)] and all(
        src == 'n1' for _name, src, _dst in moves(solution))
    assert sorted(dst for _n, _s, dst in moves(solution)) == ['n2', 'n3',
                                                              'n4']
    indicators = solution.indicator_values
    assert indicators['instance_migrations_count'] == 3
    assert indicators['standard_deviation_before_audit'] == pytest.approx(
        0.4330127)   # loads 1, 0, 0, 0
    assert indicators['standard_deviation_after_audit'] == pytest.approx(0)
    assert indicators['instances_count'] == 4
    assert all(a.input_parameters['migration_type'] == 'live'
               for a in solution.actions)


def test_stops_once_below_the_threshold():
    cluster, values = hot_cluster()
    solution = run(cluster, values,
                   thresholds={'instance_cpu_usage': 0.2})
    # One move: loads .75 .25 0 0 (sd .31); two: .5 .25 .25 0 (sd .18).
    assert solution.indicator_values['instance_migrations_count'] == 2
    assert solution.indicator_values[
        'standard_deviation_after_audit'] == pytest.approx(0.1767767)


def test_stops_when_no_move_helps():
    # Three hosts cannot share four equal servers better than 2-1-1.
    cluster, values = hot_cluster(spare_nodes=('n2', 'n3'))
    solution = run(cluster, values)
    assert solution.indicator_values['instance_migrations_count'] == 2
    after = solution.indicator_values['standard_deviation_after_audit']
    assert after == pytest.approx(0.1178511) and after > 0.1


def test_a_balanced_cluster_gets_no_plan():
    cluster, values = hot_cluster()
    solution = run(cluster, values, thresholds={'instance_cpu_usage': 0.5})
    assert solution.actions == []
    assert solution.indicator_values['standard_deviation_after_audit'] == \
        solution.indicator_values['standard_deviation_before_audit'] > 0


@pytest.mark.parametrize('spare', [{'status': 'disabled'},
                                   {'state': 'down'}])
def test_disabled_or_down_hosts_receive_nothing_and_do_not_count(spare):
    nodes = [c.node('n1', vcpus=8), c.node('n2', vcpus=8),
             c.node('off', vcpus=8, **spare)]
    servers = [c.server('s%d' % i, 'n1', vcpus=2) for i in range(4)]
    cluster = c.build(nodes, servers)
    values = cpu_values(cluster, {'s%d' % i: 100.0 for i in range(4)})
    solution = run(cluster, values)
    assert {dst for _n, _s, dst in moves(solution)} == {'n2'}
    # Two hosts, loads 1 and 0 before, .5 and .5 after.
    assert solution.indicator_values[
        'standard_deviation_before_audit'] == pytest.approx(0.5)
    assert solution.indicator_values[
        'standard_deviation_after_audit'] == pytest.approx(0)


def test_protected_hosts_receive_nothing():
    cluster, values = hot_cluster()
    solution = run(cluster, values, protected={'n3', 'n4'})
    assert {dst for _n, _s, dst in moves(solution)} == {'n2'}


def test_never_overpacks_a_host():
    # n2 and n3 are idle but have room for one 2-vcpu server each (the
    # vcpu_ratio of 1 and a 6-vcpu idle server on each).
    nodes = [c.node('n1', vcpus=8), c.node('n2', vcpus=8),
             c.node('n3', vcpus=8)]
    servers = ([c.server('s%d' % i, 'n1', vcpus=2) for i in range(4)]
               + [c.server('idle2', 'n2', vcpus=6),
                  c.server('idle3', 'n3', vcpus=6)])
    cluster = c.build(nodes, servers)
    values = cpu_values(cluster, {'s%d' % i: 100.0 for i in range(4)})
    solution = run(cluster, values)
    landed = [dst for _n, _s, dst in moves(solution)]
    assert sorted(landed) == ['n2', 'n3']
    # And memory counts as well: no room at all.
    full = [c.node('n1', vcpus=8), c.node('n2', vcpus=8, memory_mb=2048)]
    cluster = c.build(full, [c.server('s0', 'n1', vcpus=2),
                             c.server('s1', 'n1', vcpus=2),
                             c.server('hog', 'n2', vcpus=1)])
    values = cpu_values(cluster, {'s0': 100.0, 's1': 100.0})
    assert run(cluster, values).actions == []


def test_reaches_the_threshold_past_many_idle_hosts_with_no_room():
    # More idle hosts than the search's widest window, each full by
    # allocation (its idle server holds all its memory): they are the
    # least loaded, yet nothing fits on them. The warm hosts have room.
    idle = ['idle%02d' % i for i in range(ws.SEARCH_MAX_WIDTH + 2)]
    nodes = ([c.node(name, vcpus=8, memory_mb=4096) for name in idle]
             + [c.node('hot', vcpus=8)]
             + [c.node('warm%d' % i, vcpus=8) for i in range(3)])
    servers = ([c.server('sleeper-' + name, name, memory_mb=4096)
                for name in idle]
               + [c.server('busy%d' % i, 'hot', vcpus=2) for i in range(4)]
               + [c.server('half%d' % i, 'warm%d' % i, vcpus=2)
                  for i in range(3)])
    cluster = c.build(nodes, servers)
    busy = {'busy%d' % i: 100.0 for i in range(4)}
    busy.update({'half%d' % i: 50.0 for i in range(3)})
    values = cpu_values(cluster, busy)
    # Loads: hot 1, warm .125 each, idle 0: sd .1228. Two moves from hot
    # to warm hosts reach .5 .375 .375 .125: sd .0986.
    solution = run(cluster, values,
                   thresholds={'instance_cpu_usage': 0.1})
    indicators = solution.indicator_values
    assert indicators['standard_deviation_before_audit'] > 0.1
    assert indicators['standard_deviation_after_audit'] <= 0.1
    assert {src for _n, src, _d in moves(solution)} == {'hot'}
    assert {dst for _n, _s, dst in moves(solution)} <= {
        'warm0', 'warm1', 'warm2'}


def test_budget_limits_the_plan():
    cluster, values = hot_cluster()
    solution = run(cluster, values, max_migrations=1)
    assert len(solution.actions) == 1
    assert solution.indicator_values['instance_migrations_count'] == 1
    solution = run(cluster, values, max_migrations_per_host=2)
    assert len(solution.actions) == 2


def test_budget_per_project():
    nodes = [c.node('n1', vcpus=8), c.node('n2', vcpus=8),
             c.node('n3', vcpus=8), c.node('n4', vcpus=8)]
    servers = [c.server('s%d' % i, 'n1', vcpus=2, project_id='p')
               for i in range(4)]
    cluster = c.build(nodes, servers)
    values = cpu_values(cluster, {'s%d' % i: 100.0 for i in range(4)})
    assert len(run(cluster, values,
                   max_migrations_per_project=1).actions) == 1


def test_hysteresis_proposes_nothing_below_the_margin():
    cluster, values = hot_cluster(spare_nodes=('n2', 'n3'))
    # The best plan takes .4714 to .1179: 75 % better.
    solution = run(cluster, values, min_improvement=80)
    assert solution.actions == []
    indicators = solution.indicator_values
    assert indicators['instance_migrations_count'] == 0
    assert indicators['standard_deviation_after_audit'] == \
        indicators['standard_deviation_before_audit']
    assert run(cluster, values, min_improvement=70).actions


@pytest.mark.parametrize('vm_state', ['stopped', 'suspended', 'error',
                                      'shelved', 'rescued', 'resized'])
def test_servers_nova_cannot_live_migrate_stay(vm_state):
    nodes = [c.node('n1', vcpus=8), c.node('n2', vcpus=8)]
    servers = [c.server('busy', 'n1', vcpus=4, state=vm_state),
               c.server('other', 'n1', vcpus=4)]
    cluster = c.build(nodes, servers)
    values = cpu_values(cluster, {'busy': 100.0, 'other': 100.0})
    assert moves(run(cluster, values)) == [('other', 'n1', 'n2')]


def test_a_server_without_its_metric_stays():
    cluster, values = hot_cluster()
    for uuid in ('uuid-s0', 'uuid-s1', 'uuid-s2'):
        del values['instance_cpu_usage'][uuid]
    assert [name for name, _s, _d in moves(run(cluster, values))] == ['s3']


def test_a_host_without_its_metric_is_left_out():
    cluster, values = hot_cluster()
    del values['host_cpu_usage']['n4']
    assert 'n4' not in {dst for _n, _s, dst in moves(run(cluster, values))}


def test_a_saturated_host_counts_what_its_servers_ask():
    # n1's servers ask for 12 cores of its 8: the host metric stops at
    # 100 %, but moving one 4-core server off leaves it at 100 %, not
    # 50 %, so two must go.
    nodes = [c.node('n1', vcpus=8), c.node('n2', vcpus=8),
             c.node('n3', vcpus=8)]
    servers = [c.server(name, 'n1', vcpus=4) for name in 'abc']
    cluster = c.build(nodes, servers)
    values = cpu_values(cluster, {'a': 100.0, 'b': 100.0, 'c': 100.0})
    values['host_cpu_usage']['n1'] = 100.0
    solution = run(cluster, values)
    assert sorted(dst for _n, _s, dst in moves(solution)) == ['n2', 'n3']
    assert solution.indicator_values[
        'standard_deviation_before_audit'] == pytest.approx(
            statistics.pstdev([1.5, 0, 0]))


def test_ram_balance_in_watchers_units():
    # host_ram_usage in KiB, instance_ram_usage in MB; loads are over
    # each host's memory.
    nodes = [c.node('n1', memory_mb=8192), c.node('n2', memory_mb=8192)]
    servers = [c.server('a', 'n1', memory_mb=2048),
               c.server('b', 'n1', memory_mb=2048)]
    cluster = c.build(nodes, servers)
    values = {'host_ram_usage': {'n1': 4096 * 1024.0, 'n2': 0.0},
              'instance_ram_usage': {'uuid-a': 2048.0, 'uuid-b': 2048.0}}
    solution = run(cluster, values, metrics=['instance_ram_usage'])
    assert len(solution.actions) == 1
    assert solution.indicator_values[
        'standard_deviation_before_audit'] == pytest.approx(0.25)
    assert solution.indicator_values[
        'standard_deviation_after_audit'] == pytest.approx(0)


def test_weights_mix_the_metrics():
    nodes = [c.node('n1', vcpus=8), c.node('n2', vcpus=8)]
    servers = [c.server('a', 'n1', vcpus=4), c.server('b', 'n1', vcpus=4)]
    cluster = c.build(nodes, servers)
    values = cpu_values(cluster, {'a': 100.0, 'b': 100.0})
    values['host_ram_usage'] = {'n1': 0.0, 'n2': 0.0}
    values['instance_ram_usage'] = {'uuid-a': 0.0, 'uuid-b': 0.0}
    solution = run(cluster, values,
                   metrics=['instance_cpu_usage', 'instance_ram_usage'],
                   weights={'instance_cpu_usage_weight': 0.5,
                            'instance_ram_usage_weight': 1.0})
    assert solution.indicator_values[
        'standard_deviation_before_audit'] == pytest.approx(0.25)
    assert len(solution.actions) == 1


@pytest.mark.parametrize('host_choice', ['cycle', 'retry', 'fullsearch'])
def test_every_host_choice_reaches_the_balance(host_choice):
    cluster, values = hot_cluster()
    solution = run(cluster, values, host_choice=host_choice)
    assert solution.indicator_values[
        'standard_deviation_after_audit'] == pytest.approx(0)


def test_periods_aggregation_and_granularity_reach_the_datasource():
    cluster, values = hot_cluster()
    made = strategy()
    checked = parameters_mod.check(made.parameters_spec, {
        'periods': {'instance': 60, 'node': 120},
        'aggregation_method': {'instance': 'max', 'compute_node': 'min'},
        'granularity': 30})
    source = static_metrics.StaticDatasource(values)
    made.execute({}, checked, models={'compute': cluster},
                 metrics=metrics_mod.AuditMetrics([source]))
    # The deprecated "node" stands for compute_node, as in Watcher.
    assert sorted(source.queries) == [
        ('host_cpu_usage', 120, 'min', 30),
        ('instance_cpu_usage', 60, 'max', 30)]


@pytest.mark.parametrize('given, message', [
    ({'weights': {'instance_ram_usage_weight': 1.0}},
     'instance_cpu_usage_weight'),
    ({'thresholds': {'instance_ram_usage': 0.1}}, 'thresholds'),
    ({'instance_metrics': {'instance_cpu_usage': 'cpu'}}, 'host metric'),
    ({'host_choice': 'random'}, 'host_choice'),
    ({'aggregation_method': {'instance': 'median'}}, 'median'),
    ({'metrics': []}, 'metrics is empty'),
])
def test_parameters_that_cannot_work_say_why(given, message):
    cluster, values = hot_cluster()
    with pytest.raises(base.StrategyError, match=message):
        run(cluster, values, **given)


def test_a_metric_no_datasource_gives_fails_the_audit():
    cluster, values = hot_cluster()
    del values['host_cpu_usage']
    with pytest.raises(metrics_mod.MetricUnavailable,
                       match='host_cpu_usage'):
        run(cluster, values)


def test_a_metric_without_any_data_is_a_strategy_error():
    cluster, values = hot_cluster()
    values['instance_cpu_usage'] = {}
    with pytest.raises(base.StrategyError, match='instance_cpu_usage'):
        run(cluster, values)


def test_empty_cluster_and_single_node():
    empty = run(c.build([], []), {'host_cpu_usage': {},
                                  'instance_cpu_usage': {}})
    assert empty.actions == []
    assert empty.indicator_values['instances_count'] == 0
    cluster = c.build([c.node('n1', vcpus=8)],
                      [c.server('a', 'n1', vcpus=8)])
    solution = run(cluster, cpu_values(cluster, {'a': 100.0}))
    assert solution.actions == []
    assert solution.indicator_values[
        'standard_deviation_before_audit'] == 0


def test_schema_and_planner_are_watchers():
    spec = ws.WorkloadStabilization.parameters_spec['properties']
    assert spec['metrics']['default'] == ['instance_cpu_usage']
    assert spec['thresholds']['default'] == {'instance_cpu_usage': 0.1,
                                             'instance_ram_usage': 0.1}
    assert spec['host_choice']['default'] == 'retry'
    assert spec['retry_count']['default'] == 1
    assert spec['periods']['default'] == {'instance': 720,
                                          'compute_node': 600, 'node': 0}
    assert spec['granularity']['default'] == 300
    assert {'max_migrations', 'min_improvement'} <= set(spec)
    assert ws.WorkloadStabilization.planner == 'workload_stabilization'
    assert ws.WorkloadStabilization.goal == 'workload_balancing'


def test_spread_after_move_matches_a_full_recount():
    spread = load_spread.Spread([[0.9, 0.2, 0.4]], [[8.0, 16.0, 4.0]],
                                [1.0])
    predicted = spread.after_move((2.0,), 0, 2)
    spread.move((2.0,), 0, 2)
    assert spread.loads[0] == pytest.approx([0.65, 0.2, 0.9])
    assert spread.objective() == pytest.approx(predicted)
    assert predicted == pytest.approx(statistics.pstdev([0.65, 0.2, 0.9]))


def test_spread_after_moves_is_after_move_for_each_destination():
    spread = load_spread.Spread([[0.9, 0.2, 0.4, 0.1], [0.5, 0.5, 0.1, 0.3]],
                                [[8.0, 16.0, 4.0, 8.0],
                                 [64.0, 32.0, 32.0, 16.0]], [1.0, 0.5])
    assert spread.after_moves((2.0, 4.0), 0, [1, 2, 3]) == pytest.approx(
        [spread.after_move((2.0, 4.0), 0, d) for d in (1, 2, 3)])
