"""workload_balance (workload_balancing) on small hand-made clusters."""

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.goal import workload_balancing
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import moves
from watcher_ha.decision_engine.strategy import workload_balance

Balance = workload_balance.WorkloadBalance


def run(cluster, values, protected=(), **parameters):
    return strategy_runs.run(Balance, cluster,
                             static_metrics.audit_metrics(values),
                             protected, **parameters)


def migrations(solution):
    return [move[:3] for move in strategy_runs.migrations(solution)]


def cpu(**percent):
    return {'instance_cpu_usage': {'uuid-' + name: value
                                   for name, value in percent.items()}}


def hot_and_cool(hot_extra=(), **nodes):
    """hot: 8 of 16 cores busy (50 %); cool1: 1 core (6.25 %); cool2:
    idle. At the default 25 % threshold a target stays under 4 cores."""
    return c.build(
        [c.node('hot'), c.node('cool1', **nodes.get('cool1', {})),
         c.node('cool2', **nodes.get('cool2', {}))],
        [c.server('a', 'hot', vcpus=4), c.server('b', 'hot', vcpus=2),
         c.server('c', 'hot', vcpus=4), c.server('s1', 'cool1', vcpus=1),
         *hot_extra])


USAGE = cpu(a=100.0, b=100.0, c=50.0, s1=100.0)


def test_watcher_s_step_the_server_closest_to_the_average_to_the_least_busy():
    # Average 3 cores: hot is 5 over. a (4 cores) comes closest, but
    # takes every target to the threshold; b and c (2) tie: b by uuid,
    # to the idle cool2.
    solution = run(hot_and_cool(), USAGE, max_migrations=1)
    assert migrations(solution) == [('b', 'hot', 'cool2')]
    assert solution.actions[0].input_parameters['migration_type'] == 'live'


def test_repeats_the_step_until_no_node_over_the_threshold_can_shed():
    solution = run(hot_and_cool(), USAGE)
    # Then hot is 1 over the average with 4 cores (25 %): nothing of
    # 1 core or less to give.
    assert migrations(solution) == [('b', 'hot', 'cool2'),
                                    ('c', 'hot', 'cool1')]
    values = solution.indicator_values
    assert values['instance_migrations_count'] == 2
    assert values['instances_count'] == 4
    assert values['standard_deviation_before_audit'] == pytest.approx(
        0.2224, abs=1e-4)
    assert values['standard_deviation_after_audit'] == pytest.approx(
        0.0510, abs=1e-4)
    assert solution.global_efficacy()[0]['value'] == 50.0


def test_balances_ram_in_mb_of_the_node_s_memory():
    cluster = c.build(
        [c.node('hot', memory_mb=10000), c.node('cool', memory_mb=10000)],
        [c.server('a', 'hot', memory_mb=4000),
         c.server('b', 'hot', memory_mb=2000),
         c.server('s', 'cool', memory_mb=1000)])
    values = {'instance_ram_usage': {'uuid-a': 3000.0, 'uuid-b': 1500.0,
                                     'uuid-s': 500.0}}
    # hot at 45 %, cool 5 %, average 2500 MB: hot is 2000 over; b
    # (1500) brings it closest, and cool stays under 40 % with it.
    solution = run(cluster, values, metrics='instance_ram_usage',
                   threshold=40.0)
    assert migrations(solution) == [('b', 'hot', 'cool')]


def test_never_over_packs_a_target():
    # cool2 is idle but has no room for b (2 vcpus) by its allocation.
    cluster = hot_and_cool(cool2={'vcpus': 1, 'vcpu_ratio': 1.0})
    solution = run(cluster, USAGE, max_migrations=1)
    assert migrations(solution) == [('b', 'hot', 'cool1')]


def test_disabled_down_and_protected_nodes_receive_nothing():
    for nodes, protected in (({'cool2': {'status': 'disabled'}}, ()),
                             ({'cool2': {'state': 'down'}}, ()),
                             ({}, ('cool2',))):
        solution = run(hot_and_cool(**nodes), USAGE, protected=protected)
        assert all(dst != 'cool2' for _, _, dst in migrations(solution))
        assert migrations(solution)[0] == ('b', 'hot', 'cool1')


def test_servers_nova_cannot_live_migrate_stay():
    cluster = c.build(
        [c.node('hot'), c.node('cool')],
        [c.server('a', 'hot', vcpus=4, state='stopped'),
         c.server('b', 'hot', vcpus=4, state='paused'),
         c.server('c', 'hot', vcpus=4, state='error')])
    solution = run(cluster, cpu(a=100.0, b=100.0, c=100.0))
    assert solution.actions == []
    assert solution.indicator_values['instance_migrations_count'] == 0


def test_budget_overall_per_host_and_per_project():
    assert len(run(hot_and_cool(), USAGE, max_migrations=1).actions) == 1
    assert len(run(hot_and_cool(), USAGE,
                   max_migrations_per_host=1).actions) == 1
    cluster = c.build(
        [c.node('hot'), c.node('cool1'), c.node('cool2')],
        [c.server('a', 'hot', vcpus=4), c.server('b', 'hot', vcpus=2),
         c.server('c', 'hot', vcpus=4, project_id='p2'),
         c.server('s1', 'cool1', vcpus=1)])
    solution = run(cluster, USAGE, max_migrations_per_project=1)
    assert migrations(solution) == [('b', 'hot', 'cool2'),
                                    ('c', 'hot', 'cool1')]
    cluster = c.build(
        [c.node('hot'), c.node('cool1'), c.node('cool2')],
        [c.server('a', 'hot', vcpus=4), c.server('b', 'hot', vcpus=2),
         c.server('c', 'hot', vcpus=4), c.server('s1', 'cool1', vcpus=1)])
    assert len(run(cluster, USAGE, max_migrations_per_project=1).actions) \
        == 1


def test_hysteresis_proposes_nothing_below_min_improvement():
    # The deviation falls by 77 %.
    solution = run(hot_and_cool(), USAGE, min_improvement=80)
    assert solution.actions == []
    values = solution.indicator_values
    assert values['instance_migrations_count'] == 0
    assert values['standard_deviation_after_audit'] == \
        values['standard_deviation_before_audit']
    assert len(run(hot_and_cool(), USAGE, min_improvement=70).actions) == 2


def test_metrics_are_read_once_in_bulk_with_period_and_granularity():
    strategy = Balance(workload_balancing.WorkloadBalancing)
    checked = parameters_mod.check(Balance.parameters_spec,
                                   {'period': 600, 'granularity': 60})
    source = static_metrics.StaticDatasource(USAGE)
    strategy.execute({}, checked, models={'compute': hot_and_cool()},
                     metrics=metrics_mod.AuditMetrics([source]))
    assert source.queries == [('instance_cpu_usage', 600, 'mean', 60)]


def test_a_metric_outside_watcher_s_choice_is_refused():
    with pytest.raises(base.StrategyError, match='instance_ram_usage'):
        run(hot_and_cool(), USAGE, metrics='host_cpu_usage')


def test_a_metric_no_datasource_has_fails_the_audit_naming_it():
    with pytest.raises(metrics_mod.MetricUnavailable,
                       match='instance_ram_usage'):
        run(hot_and_cool(), USAGE, metrics='instance_ram_usage')


def test_no_data_for_any_server_is_an_error_some_missing_are_left_out():
    with pytest.raises(base.StrategyError, match='instance_cpu_usage'):
        run(hot_and_cool(), {'instance_cpu_usage': {}})
    # Without b's data hot has 6 cores; c (2) is the one to move.
    partial = cpu(a=100.0, c=50.0, s1=100.0)
    assert migrations(run(hot_and_cool(), partial, max_migrations=1)) == [
        ('c', 'hot', 'cool2')]


def test_edge_clusters():
    empty = run(c.build([], []), {'instance_cpu_usage': {}})
    assert empty.actions == []
    assert empty.indicator_values['instances_count'] == 0
    one = c.build([c.node('n1')], [c.server('a', 'n1', vcpus=16)])
    assert run(one, cpu(a=90.0)).actions == []
    # Every node over the threshold: no target.
    both = c.build([c.node('n1'), c.node('n2')],
                   [c.server('a', 'n1', vcpus=16),
                    c.server('b', 'n2', vcpus=8)])
    assert run(both, cpu(a=90.0, b=80.0)).actions == []
    assert run(hot_and_cool(), USAGE, threshold=60.0).actions == []


def test_needs_the_compute_model_and_metrics():
    strategy = Balance(workload_balancing.WorkloadBalancing)
    checked = parameters_mod.check(Balance.parameters_spec, {})
    with pytest.raises(base.StrategyError, match='compute data model'):
        strategy.execute({}, checked, models={})
    with pytest.raises(base.StrategyError, match='datasources'):
        strategy.execute({}, checked, models={'compute': hot_and_cool()})


def test_schema_is_watcher_s_plus_the_budget():
    properties = Balance.parameters_spec['properties']
    assert properties['metrics']['default'] == 'instance_cpu_usage'
    assert properties['metrics']['choice'] == ['instance_cpu_usage',
                                               'instance_ram_usage']
    assert properties['threshold']['default'] == 25.0
    assert properties['period']['default'] == 300
    assert properties['granularity']['default'] == 300
    assert set(moves.BUDGET_PARAMETERS) <= set(properties)
    assert Balance.display_name == 'Workload Balance Migration Strategy'
    assert Balance.goal == 'workload_balancing'
    assert Balance.planner == 'workload_stabilization'


def test_first_move_is_watcher_17_s_on_the_reference_cluster():
    cluster, values = c.load_reference(100, 2000)
    solution = run(cluster, values, max_migrations=1)
    # What Watcher 17.0.0 proposes for the same input.
    assert migrations(solution) == [('vm-000879', 'compute-0069',
                                     'compute-0005')]
