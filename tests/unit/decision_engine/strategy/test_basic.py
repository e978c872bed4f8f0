"""basic (server_consolidation) on small hand-made clusters."""

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.goal import server_consolidation
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import basic_consolidation
from watcher_ha.decision_engine.strategy import moves

Basic = basic_consolidation.BasicConsolidation


def run(cluster, host_cpu, server_cpu, protected=(), **parameters):
    return strategy_runs.run(Basic, cluster, static_metrics.audit_metrics(
        {'host_cpu_usage': host_cpu, 'instance_cpu_usage': server_cpu}),
        protected, **parameters)


def migrations(solution):
    return {name: (source, destination) for name, source, destination, _
            in strategy_runs.migrations(solution)}


def disabled(solution):
    return [a.input_parameters['resource_name'] for a in solution.actions
            if a.action_type == 'change_nova_service_state']


def usage(*names, value=10.0):
    return {'uuid-' + name: value for name in names}


def three_nodes(extra_servers=()):
    """busy (16 vcpus, 10 used) > mid (16, 4 used) > idle (16, 2 used)."""
    return c.build(
        [c.node('busy'), c.node('mid'), c.node('idle')],
        [c.server('b1', 'busy', vcpus=10),
         c.server('m1', 'mid', vcpus=4),
         c.server('i1', 'idle', vcpus=1), c.server('i2', 'idle', vcpus=1),
         *extra_servers])


HOSTS = {'busy': 80.0, 'mid': 40.0, 'idle': 5.0}
SERVERS = usage('b1', 'm1', 'i1', 'i2')


def test_empties_the_least_busy_nodes_onto_the_busiest_and_disables_them():
    solution = run(three_nodes(), HOSTS, SERVERS)
    assert migrations(solution) == {'i1': ('idle', 'busy'),
                                    'i2': ('idle', 'busy'),
                                    'm1': ('mid', 'busy')}
    assert disabled(solution) == ['idle', 'mid']
    action = solution.actions[-1]
    assert action.input_parameters == {
        'resource_id': 'uuid-mid', 'resource_name': 'mid',
        'state': 'disabled', 'disabled_reason': 'watcher_disabled'}
    assert all(a.input_parameters['migration_type'] == 'live'
               for a in solution.actions if a.action_type == 'migrate')
    assert solution.indicator_values == {
        'compute_nodes_count': 3, 'released_compute_nodes_count': 2,
        'instance_migrations_count': 3}
    assert solution.global_efficacy()[0]['value'] == pytest.approx(
        200.0 / 3)


def test_never_over_packs_a_destination():
    # busy has 6 vcpus left: idle's two servers fit, mid's 4 no more.
    cluster = three_nodes([c.server('i3', 'idle', vcpus=4)])
    solution = run(cluster, HOSTS, usage('b1', 'm1', 'i1', 'i2', 'i3'))
    moved = migrations(solution)
    assert moved['i3'] == ('idle', 'busy')
    assert {moved['i1'][1], moved['i2'][1]} <= {'busy', 'mid'}
    assert 'm1' not in moved
    used = {'busy': 10, 'mid': 4}
    for name, (_, destination) in moved.items():
        used[destination] += {'i1': 1, 'i2': 1, 'i3': 4}[name]
    assert all(vcpus <= 16 for vcpus in used.values())
    assert disabled(solution) == ['idle']


def test_busiest_server_goes_to_the_busiest_node_first():
    cluster = c.build(
        [c.node('busy', vcpus=4), c.node('mid'), c.node('idle')],
        [c.server('b1', 'busy', vcpus=3), c.server('m1', 'mid'),
         c.server('hot', 'idle'), c.server('cool', 'idle')])
    solution = run(cluster, HOSTS, dict(usage('b1', 'm1', 'cool'),
                                        **usage('hot', value=90.0)))
    assert migrations(solution)['hot'] == ('idle', 'busy')
    assert migrations(solution)['cool'] == ('idle', 'mid')


def test_a_node_moves_all_its_servers_or_none():
    # idle's big server fits nowhere: its small ones stay with it.
    cluster = three_nodes([c.server('big', 'idle', vcpus=13)])
    solution = run(cluster, HOSTS, usage('b1', 'm1', 'i1', 'i2', 'big'))
    moved = migrations(solution)
    assert not {'i1', 'i2', 'big'} & set(moved)
    # mid still empties, onto busy.
    assert moved == {'m1': ('mid', 'busy')}
    assert disabled(solution) == ['mid']


def test_a_node_that_stays_in_use_still_receives():
    cluster = c.build(
        [c.node('busy'), c.node('mid'), c.node('idle')],
        [c.server('b1', 'busy', vcpus=15), c.server('m1', 'mid', vcpus=2),
         c.server('off', 'idle', vcpus=2, state='stopped')])
    solution = run(cluster, HOSTS, usage('b1', 'm1'))
    # idle keeps its stopped server, so mid empties onto it (busy is
    # full).
    assert migrations(solution) == {'m1': ('mid', 'idle')}


def test_servers_nova_cannot_live_migrate_keep_their_node():
    for state in ('stopped', 'paused', 'error', 'suspended'):
        cluster = three_nodes([c.server('x', 'idle', state=state)])
        solution = run(cluster, HOSTS, SERVERS)
        assert 'x' not in migrations(solution)
        assert 'i1' not in migrations(solution)
        assert 'idle' not in disabled(solution)


def test_disabled_down_and_protected_nodes_receive_nothing():
    cluster = c.build(
        [c.node('off', status='disabled'), c.node('down', state='down'),
         c.node('kept'), c.node('mid'), c.node('idle')],
        [c.server('o1', 'off'), c.server('d1', 'down'),
         c.server('k1', 'kept'), c.server('m1', 'mid', vcpus=15),
         c.server('i1', 'idle', vcpus=2)])
    hosts = {'off': 90.0, 'down': 90.0, 'kept': 90.0, 'mid': 50.0,
             'idle': 5.0}
    solution = run(cluster, hosts, usage('o1', 'd1', 'k1', 'm1', 'i1'),
                   protected={'kept'})
    moved = migrations(solution)
    assert all(dst not in ('off', 'down', 'kept')
               for _, dst in moved.values())
    # The disabled node is emptied like any other, keeps its state
    # (no action overwrites its reason) and counts as released; the
    # protected node is left to whoever protects it.
    assert moved['o1'][0] == 'off'
    assert 'k1' not in moved and 'd1' not in moved
    assert 'off' not in disabled(solution)
    assert solution.indicator_values['compute_nodes_count'] == 3


def test_a_pinned_server_stays_in_its_zone():
    cluster = c.build(
        [c.node('busy', availability_zone='az1'),
         c.node('mid', availability_zone='az2'),
         c.node('idle', availability_zone='az2')],
        [c.server('b1', 'busy'), c.server('m1', 'mid'),
         c.server('p', 'idle', pinned_availability_zone='az2')])
    solution = run(cluster, HOSTS, usage('b1', 'm1', 'p'))
    assert migrations(solution)['p'] == ('idle', 'mid')


def test_budget_overall_moves_whole_nodes_only():
    solution = run(three_nodes(), HOSTS, SERVERS, max_migrations=1)
    # idle needs 2 moves: skipped; mid needs 1.
    assert migrations(solution) == {'m1': ('mid', 'busy')}
    assert solution.indicator_values['instance_migrations_count'] == 1


def test_budget_per_host_and_per_project():
    solution = run(three_nodes(), HOSTS, SERVERS, max_migrations_per_host=1)
    assert migrations(solution) == {'m1': ('mid', 'busy')}
    cluster = c.build(
        [c.node('busy'), c.node('mid'), c.node('idle')],
        [c.server('b1', 'busy'), c.server('m1', 'mid', project_id='p2'),
         c.server('i1', 'idle'), c.server('i2', 'idle')])
    solution = run(cluster, HOSTS, SERVERS, max_migrations_per_project=1)
    assert migrations(solution) == {'m1': ('mid', 'busy')}


def test_hysteresis_proposes_nothing_below_min_improvement():
    # 3 nodes in use, 2 released: 66.7 % fewer.
    solution = run(three_nodes(), HOSTS, SERVERS, min_improvement=70)
    assert solution.actions == []
    assert solution.indicator_values == {
        'compute_nodes_count': 3, 'released_compute_nodes_count': 0,
        'instance_migrations_count': 0}
    assert run(three_nodes(), HOSTS, SERVERS, min_improvement=60).actions


def test_migration_attempts_stops_after_that_many_nodes_in_a_row_fail():
    cluster = c.build(
        [c.node('busy'), c.node('n1', vcpus=12), c.node('n2', vcpus=12),
         c.node('n3', vcpus=12)],
        [c.server('b1', 'busy', vcpus=14), c.server('x1', 'n1', vcpus=12),
         c.server('x2', 'n2', vcpus=12), c.server('s3', 'n3')])
    hosts = {'busy': 90.0, 'n1': 30.0, 'n2': 20.0, 'n3': 10.0}
    servers = usage('b1', 'x1', 'x2', 's3')
    # n3 empties into busy; n1, n2 and busy fit nowhere else.
    assert disabled(run(cluster, hosts, servers)) == ['n3']
    hosts = {'busy': 90.0, 'n1': 10.0, 'n2': 20.0, 'n3': 30.0}
    assert disabled(run(cluster, hosts, servers)) == ['n3']
    assert disabled(run(cluster, hosts, servers, migration_attempts=3)) == [
        'n3']
    assert disabled(run(cluster, hosts, servers,
                        migration_attempts=2)) == []


def test_metrics_are_read_in_bulk_with_the_audit_s_aggregation():
    strategy = Basic(server_consolidation.ServerConsolidation)
    checked = parameters_mod.check(Basic.parameters_spec, {
        'period': 600, 'granularity': 60,
        'aggregation_method': {'instance': 'max', 'compute_node': 'min',
                               'node': ''}})
    source = static_metrics.StaticDatasource(
        {'host_cpu_usage': HOSTS, 'instance_cpu_usage': SERVERS})
    strategy.execute({}, checked, models={'compute': three_nodes()},
                     metrics=metrics_mod.AuditMetrics([source]))
    assert source.queries == [('host_cpu_usage', 600, 'min', 60),
                              ('instance_cpu_usage', 600, 'max', 60)]
    # Watcher's deprecated "node" key still wins over compute_node.
    checked['aggregation_method']['node'] = 'max'
    source.queries.clear()
    strategy.execute({}, checked, models={'compute': three_nodes()},
                     metrics=metrics_mod.AuditMetrics([source]))
    assert source.queries[0] == ('host_cpu_usage', 600, 'max', 60)


def test_an_unknown_aggregation_method_is_refused():
    with pytest.raises(base.StrategyError, match='median'):
        run(three_nodes(), HOSTS, SERVERS, aggregation_method={
            'instance': 'median', 'compute_node': 'mean', 'node': ''})


def test_a_metric_no_datasource_has_fails_the_audit_naming_it():
    strategy = Basic(server_consolidation.ServerConsolidation)
    checked = parameters_mod.check(Basic.parameters_spec, {})
    with pytest.raises(metrics_mod.MetricUnavailable,
                       match='instance_cpu_usage'):
        strategy.execute({}, checked, models={'compute': three_nodes()},
                         metrics=static_metrics.audit_metrics(
                             {'host_cpu_usage': HOSTS}))


def test_no_data_for_any_node_is_an_error_some_missing_count_as_busy():
    with pytest.raises(base.StrategyError, match='host_cpu_usage'):
        run(three_nodes(), {}, SERVERS)
    # mid without data counts as 100 % busy: it ranks first and receives.
    solution = run(three_nodes(), {'busy': 80.0, 'idle': 5.0}, SERVERS)
    assert migrations(solution)['i1'] == ('idle', 'mid')
    assert 'busy' in disabled(solution)


def test_edge_clusters():
    empty = run(c.build([], []), {}, {})
    assert empty.actions == []
    assert empty.indicator_values['compute_nodes_count'] == 0
    one = c.build([c.node('n1')], [c.server('a', 'n1')])
    assert run(one, {'n1': 50.0}, usage('a')).actions == []
    full = c.build([c.node('n1', vcpus=1), c.node('n2', vcpus=1)],
                   [c.server('a', 'n1'), c.server('b', 'n2')])
    assert run(full, {'n1': 50.0, 'n2': 40.0}, usage('a', 'b')).actions == []
    # Empty nodes are neither released again nor filled.
    spare = c.build([c.node('n1'), c.node('n2'), c.node('spare')],
                    [c.server('a', 'n1'), c.server('b', 'n2')])
    solution = run(spare, {'n1': 50.0, 'n2': 40.0}, usage('a', 'b'))
    assert migrations(solution) == {'b': ('n2', 'n1')}


def test_needs_the_compute_model_and_metrics():
    strategy = Basic(server_consolidation.ServerConsolidation)
    checked = parameters_mod.check(Basic.parameters_spec, {})
    with pytest.raises(base.StrategyError, match='compute data model'):
        strategy.execute({}, checked, models={})
    with pytest.raises(base.StrategyError, match='datasources'):
        strategy.execute({}, checked, models={'compute': three_nodes()})


def test_schema_is_watcher_s_plus_the_budget():
    properties = Basic.parameters_spec['properties']
    assert properties['migration_attempts']['default'] == 0
    assert properties['period']['default'] == 7200
    assert properties['granularity']['default'] == 300
    assert properties['aggregation_method']['default'] == {
        'instance': 'mean', 'compute_node': 'mean', 'node': ''}
    assert set(moves.BUDGET_PARAMETERS) <= set(properties)
    assert Basic.display_name == 'Basic offline consolidation'
    assert Basic.goal == 'server_consolidation'


def test_within_budget_all_counts_the_group():
    cluster = three_nodes()
    group = cluster.instances_on('idle')
    limits = {'max_migrations': 0, 'max_migrations_per_host': 0,
              'max_migrations_per_project': 0}
    assert moves.Moves(cluster, limits).within_budget_all(group)
    for key in limits:
        plan = moves.Moves(cluster, dict(limits, **{key: 1}))
        assert not plan.within_budget_all(group)
        assert moves.Moves(cluster, dict(limits, **{key: 2})) \
            .within_budget_all(group)
    plan = moves.Moves(cluster, dict(limits, max_migrations=2))
    plan.move(cluster.instance('uuid-m1'), 'busy')
    assert not plan.within_budget_all(group)


@pytest.fixture
def check_optimize_metadata(conf):
    conf.set_override('check_optimize_metadata', True,
                      group='watcher_strategies.basic')
    yield
    conf.clear_override('check_optimize_metadata',
                        group='watcher_strategies.basic')


def optimize(value):
    return {'metadata': (('optimize', value),)}


@pytest.mark.parametrize('value', ['false', 'no', '0', 'later'])
def test_with_check_optimize_metadata_a_server_kept_in_place_keeps_its_node(
        check_optimize_metadata, value):
    cluster = c.build(
        [c.node('busy'), c.node('mid'), c.node('idle')],
        [c.server('b1', 'busy', vcpus=10), c.server('m1', 'mid', vcpus=4),
         c.server('i1', 'idle', vcpus=1),
         c.server('i2', 'idle', vcpus=1, **optimize(value))])
    solution = run(cluster, HOSTS, SERVERS)
    # idle holds i2, which must stay: idle is not emptied, mid is.
    assert migrations(solution) == {'m1': ('mid', 'busy')}
    assert disabled(solution) == ['mid']


def test_with_check_optimize_metadata_other_servers_move(
        check_optimize_metadata):
    cluster = c.build(
        [c.node('busy'), c.node('mid'), c.node('idle')],
        [c.server('b1', 'busy', vcpus=10), c.server('m1', 'mid', vcpus=4),
         c.server('i1', 'idle', vcpus=1,
                  metadata=(('role', 'web'),)),
         c.server('i2', 'idle', vcpus=1, **optimize('True'))])
    assert disabled(run(cluster, HOSTS, SERVERS)) == ['idle', 'mid']


def test_without_check_optimize_metadata_the_metadata_is_not_read():
    cluster = c.build(
        [c.node('busy'), c.node('mid'), c.node('idle')],
        [c.server('b1', 'busy', vcpus=10), c.server('m1', 'mid', vcpus=4),
         c.server('i1', 'idle', vcpus=1),
         c.server('i2', 'idle', vcpus=1, **optimize('false'))])
    assert disabled(run(cluster, HOSTS, SERVERS)) == ['idle', 'mid']
