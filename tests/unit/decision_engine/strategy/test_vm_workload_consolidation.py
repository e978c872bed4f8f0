"""vm_workload_consolidation's decisions on small hand-made clusters."""

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import vm_workload_consolidation



def measures(cluster, cpu=10.0, ram_share=0.5, hosts=None, **overrides):
    """Static metrics for every server of ``cluster``: ``cpu`` percent of
    its vcpus, ``ram_share`` of its memory in use; ``overrides``:
    {metric: {key: value}} replacing those given."""
    servers = list(cluster.instances.values())
    values = {
        'instance_cpu_usage': {s.uuid: cpu for s in servers},
        'instance_ram_usage': {s.uuid: s.memory_mb * ram_share
                               for s in servers},
        'instance_ram_allocated': {s.uuid: float(s.memory_mb)
                                   for s in servers},
        'instance_root_disk_size': {s.uuid: float(s.disk_gb)
                                    for s in servers},
        'host_cpu_usage': {}, 'host_ram_usage': {}}
    for metric, by_key in (hosts or {}).items():
        values[metric].update(by_key)
    for metric, by_key in overrides.items():
        if by_key is None:
            del values[metric]
        else:
            values[metric].update(by_key)
    return static_metrics.audit_metrics(values)


def run(cluster, metrics=None, protected=(), **parameters):
    return strategy_runs.run(vm_workload_consolidation.VMWorkloadConsolidation,
                             cluster, metrics or measures(cluster), protected,
                             **parameters)


def migrations(solution):
    return {name: (source, destination, kind) for name, source, destination,
            kind in strategy_runs.migrations(solution)}


def service_changes(solution):
    return [(a.input_parameters['resource_name'], a.input_parameters['state'],
             a.input_parameters.get('disabled_reason'))
            for a in solution.actions
            if a.action_type == 'change_nova_service_state']


def test_the_node_with_fewest_servers_is_emptied_into_the_fullest():
    cluster = c.build(
        [c.node('n1'), c.node('n2'), c.node('n3')],
        [c.server('a', 'n1'),
         c.server('b', 'n2'), c.server('b2', 'n2'),
         c.server('c', 'n3'), c.server('c2', 'n3'), c.server('c3', 'n3')])
    solution = run(cluster)
    # n1 (1 server) then n2 (2) are emptied; n3 keeps everything.
    assert migrations(solution) == {
        'a': ('n1', 'n3', 'live'), 'b': ('n2', 'n3', 'live'),
        'b2': ('n2', 'n3', 'live')}
    assert service_changes(solution) == [
        ('n1', 'disabled', 'watcher_disabled'),
        ('n2', 'disabled', 'watcher_disabled')]
    # Disables come after the migrations.
    assert solution.actions[-1].action_type == 'change_nova_service_state'
    assert solution.indicator_values == {
        'compute_nodes_count': 3, 'released_compute_nodes_count': 2,
        'instance_migrations_count': 3}
    assert solution.global_efficacy()[0]['value'] == pytest.approx(66.67,
                                                                   0.01)


def test_a_node_is_emptied_whole_or_not_at_all():
    # n2 has room for one of n1's two servers only: Watcher moves that
    # one and frees nothing; nothing moves here.
    cluster = c.build(
        [c.node('n1', memory_mb=8192), c.node('n2', memory_mb=8192)],
        [c.server('a', 'n1', memory_mb=4096),
         c.server('b', 'n1', memory_mb=4096),
         c.server('x', 'n2', memory_mb=4096)])
    solution = run(cluster)
    assert migrations(solution) == {}
    assert solution.indicator_values['released_compute_nodes_count'] == 0


def test_allocations_are_respected_even_when_usage_is_low():
    # 10% CPU, half the RAM in use: by usage n2 could take both servers;
    # by Placement's count it has 16 vcpus for 12 + 8.
    cluster = c.build(
        [c.node('n1'), c.node('n2')],
        [c.server('a', 'n1', vcpus=8),
         c.server('x', 'n2', vcpus=6), c.server('y', 'n2', vcpus=6)])
    assert migrations(run(cluster)) == {}


def test_the_host_measure_counts_what_runs_beside_the_servers():
    # Each server uses 1 GB of its 2; n2 (32 GB) reports more in use
    # (KiB) than its servers: with 30 GB, a fits; with 31.5 GB it does
    # not, and n2 is emptied into n1 instead.
    cluster = c.build(
        [c.node('n1'), c.node('n2')],
        [c.server('a', 'n1'), c.server('x', 'n2'), c.server('y', 'n2')])
    fits = run(cluster, measures(cluster, hosts={
        'host_ram_usage': {'n2': 30 * 1024 * 1024}}))
    assert migrations(fits) == {'a': ('n1', 'n2', 'live')}
    full = run(cluster, measures(cluster, hosts={
        'host_ram_usage': {'n2': 31.5 * 1024 * 1024}}))
    assert migrations(full) == {'x': ('n2', 'n1', 'live'),
                                'y': ('n2', 'n1', 'live')}


def test_disabled_and_protected_nodes_receive_nothing_and_stay_as_they_are():
    cluster = c.build(
        [c.node('n1'), c.node('off', status='disabled',
                              disabled_reason='hardware check'),
         c.node('spare'), c.node('n2')],
        [c.server('a', 'n1'),
         c.server('x', 'off'), c.server('y', 'off'), c.server('z', 'off'),
         c.server('p', 'spare'), c.server('q', 'spare'),
         c.server('r', 'spare')])
    solution = run(cluster, protected={'spare'})
    moved = migrations(solution)
    assert {dst for _, dst, _ in moved.values()} <= {'n1', 'n2'}
    assert not any(src == 'spare' for src, _, _ in moved.values())
    # The protected node is not disabled even if it were empty; the
    # operator's disabled node is left as it is.
    assert 'spare' not in {n for n, _, _ in service_changes(solution)}
    assert ('off', 'enabled', None) not in service_changes(solution)


def test_an_empty_protected_node_is_not_disabled():
    cluster = c.build([c.node('n1'), c.node('spare')],
                      [c.server('a', 'n1')])
    solution = run(cluster, protected={'spare'})
    assert service_changes(solution) == []


def test_servers_nova_cannot_migrate_keep_their_node():
    cluster = c.build(
        [c.node('n1'), c.node('n2'), c.node('n3')],
        [c.server('sus', 'n1', state='suspended'),
         c.server('off', 'n2', state='stopped'),
         c.server('x', 'n3'), c.server('y', 'n3'), c.server('z', 'n3')])
    moved = migrations(run(cluster))
    assert moved == {'off': ('n2', 'n3', 'cold')}


def test_a_pinned_server_stays_in_its_zone():
    cluster = c.build(
        [c.node('n1', availability_zone='az1'),
         c.node('big', availability_zone='az2'),
         c.node('n2', availability_zone='az1')],
        [c.server('a', 'n1', pinned_availability_zone='az1'),
         c.server('b', 'big'), c.server('b2', 'big'), c.server('b3', 'big'),
         c.server('x', 'n2'), c.server('y', 'n2')])
    moved = migrations(run(cluster))
    assert moved['a'] == ('n1', 'n2', 'live')


def test_the_budget_limits_the_moves_to_whole_nodes():
    cluster = c.build(
        [c.node('n1'), c.node('n2'), c.node('n3')],
        [c.server('a', 'n1'),
         c.server('b', 'n2'), c.server('b2', 'n2'),
         c.server('c', 'n3'), c.server('c2', 'n3'), c.server('c3', 'n3')])
    solution = run(cluster, max_migrations=2)
    # n2 would take 2 more: only n1 is emptied.
    assert migrations(solution) == {'a': ('n1', 'n3', 'live')}
    per_project = run(cluster, max_migrations_per_project=1)
    assert len(migrations(per_project)) == 1


def test_below_the_minimum_improvement_the_plan_is_empty():
    # Only n1 can be emptied (the others are nearly full): 4 nodes in
    # service become 3, 25% fewer.
    cluster = c.build(
        [c.node('n%d' % i) for i in range(1, 5)],
        [c.server('a', 'n1', vcpus=2)]
        + [c.server('x%d' % i, 'n%d' % (i % 3 + 2), vcpus=7)
           for i in range(6)])
    assert migrations(run(cluster, min_improvement=25)) == {
        'a': ('n1', 'n4', 'live')}
    solution = run(cluster, min_improvement=30)
    assert solution.actions == []
    assert solution.indicator_values == {
        'compute_nodes_count': 4, 'released_compute_nodes_count': 0,
        'instance_migrations_count': 0}


def test_an_overloaded_node_sheds_its_least_busy_servers_first():
    # n1 has 16 cores (ratio 1); its servers use 12.8 of them, but the
    # host reports 17.6 in use.
    cluster = c.build(
        [c.node('n1', vcpus=16), c.node('n2', vcpus=16),
         c.node('n3', vcpus=16)],
        [c.server('hot%d' % i, 'n1', vcpus=4) for i in range(4)]
        + [c.server('x', 'n2'), c.server('y', 'n2'),
           c.server('z', 'n3')])
    cpu = {'uuid-hot0': 100.0, 'uuid-hot1': 100.0, 'uuid-hot2': 100.0,
           'uuid-hot3': 20.0}
    solution = run(cluster, measures(
        cluster, instance_cpu_usage=cpu,
        hosts={'host_cpu_usage': {'n1': 110.0}}))
    moved = migrations(solution)
    # hot3 (0.8 core) is the least busy: 16.8 left, still over; then
    # one of the busy ones (4 cores).
    assert moved['hot3'][0] == 'n1'
    assert sum(src == 'n1' for src, _, _ in moved.values()) == 2


def test_a_node_watcher_disabled_is_enabled_when_the_load_needs_it():
    cluster = c.build(
        [c.node('n1', vcpus=4),
         c.node('old', vcpus=4, status='disabled',
                disabled_reason='watcher_disabled')],
        [c.server('a', 'n1', vcpus=2), c.server('b', 'n1', vcpus=2)])
    solution = run(cluster, measures(cluster, cpu=100.0, hosts={
        'host_cpu_usage': {'n1': 150.0}}))
    assert service_changes(solution)[0] == ('old', 'enabled', None)
    assert solution.actions[0].action_type == 'change_nova_service_state'
    assert len(migrations(solution)) == 1
    assert solution.indicator_values['released_compute_nodes_count'] == 0


def test_a_missing_metric_names_it():
    cluster = c.build([c.node('n1'), c.node('n2')], [c.server('a', 'n1')])
    with pytest.raises(metrics_mod.MetricUnavailable,
                       match='instance_cpu_usage'):
        run(cluster, measures(cluster, instance_cpu_usage=None))


def test_without_metrics_it_says_what_to_configure():
    cluster = c.build([c.node('n1')], [])
    with pytest.raises(base.StrategyError, match='datasources'):
        strategy_runs.run(vm_workload_consolidation.VMWorkloadConsolidation,
                          cluster)


def test_a_server_without_a_ram_measure_counts_its_allocated_ram():
    # a has no RAM usage: its allocated 4 GB is read instead (one bulk
    # read, for the servers lacking it), which n2 has no room for by
    # use (5 GB of 8 in use), though Placement would allow it.
    cluster = c.build([c.node('n1'), c.node('n2', memory_mb=8192)],
                      [c.server('a', 'n1', memory_mb=4096),
                       c.server('x', 'n2'), c.server('y', 'n2')])
    metrics = measures(cluster, instance_ram_usage={'uuid-a': 0},
                       hosts={'host_ram_usage': {'n2': 5120 * 1024}})
    assert 'a' not in migrations(run(cluster, metrics))
    queried = [q[0] for q in metrics.datasources[0].queries]
    assert queried.count('instance_ram_allocated') == 1
    assert len(queried) == len(set(queried))


def test_edge_cases_empty_cluster_one_node_and_all_full():
    assert run(c.build([], [])).indicator_values == {
        'compute_nodes_count': 0, 'released_compute_nodes_count': 0,
        'instance_migrations_count': 0}
    one = c.build([c.node('n1')], [c.server('a', 'n1')])
    assert run(one).actions == []
    full = c.build([c.node('n1', vcpus=2), c.node('n2', vcpus=2)],
                   [c.server(n, h, vcpus=2) for n, h in (('a', 'n1'),
                                                          ('b', 'n2'))])
    assert run(full).actions == []


def test_an_already_empty_node_is_disabled_without_migrations():
    cluster = c.build([c.node('n1'), c.node('idle')], [c.server('a', 'n1'),
                                                       c.server('b', 'n1')])
    solution = run(cluster)
    assert migrations(solution) == {}
    assert service_changes(solution) == [
        ('idle', 'disabled', 'watcher_disabled')]


def test_parameters_are_watchers_and_the_budget():
    spec = vm_workload_consolidation.VMWorkloadConsolidation.parameters_spec
    assert spec['properties']['period']['default'] == 3600
    assert spec['properties']['granularity']['default'] == 300
    assert {'max_migrations', 'min_improvement'} <= set(spec['properties'])
