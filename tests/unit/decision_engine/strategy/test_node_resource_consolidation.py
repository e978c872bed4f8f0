"""node_resource_consolidation's decisions on small hand-made clusters,
and the packing it shares with vm_workload_consolidation."""

import pytest

from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import consolidation
from watcher_ha.decision_engine.strategy import moves
from watcher_ha.decision_engine.strategy import node_resource_consolidation

REASON = 'Watcher node resource consolidation strategy'


def run(cluster, protected=(), **parameters):
    return strategy_runs.run(
        node_resource_consolidation.NodeResourceConsolidation, cluster,
        protected=protected, **parameters)


def steps(solution):
    out = []
    for action in solution.actions:
        p = action.input_parameters
        if action.action_type == 'migrate':
            out.append(('migrate', p['resource_name'], p['source_node'],
                        p.get('destination_node')))
        else:
            out.append((p['state'], p['resource_name'],
                        p.get('disabled_reason')))
    return out


def three_nodes():
    return c.build(
        [c.node('n1'), c.node('n2'), c.node('n3'), c.node('idle')],
        [c.server('a', 'n1'),
         c.server('b', 'n2'), c.server('b2', 'n2'),
         c.server('c', 'n3'), c.server('c2', 'n3'), c.server('c3', 'n3')])


def test_auto_hides_the_nodes_to_free_from_the_scheduler_then_restores():
    solution = run(three_nodes())
    assert steps(solution) == [
        ('disabled', 'idle', REASON), ('disabled', 'n1', REASON),
        ('disabled', 'n2', REASON),
        ('migrate', 'a', 'n1', None), ('migrate', 'b', 'n2', None),
        ('migrate', 'b2', 'n2', None),
        ('enabled', 'idle', None), ('enabled', 'n1', None),
        ('enabled', 'n2', None)]
    assert all(a.input_parameters['migration_type'] == 'live'
               for a in solution.actions if a.action_type == 'migrate')
    assert solution.indicator_values == {
        'compute_nodes_count': 4, 'released_compute_nodes_count': 2,
        'instance_migrations_count': 3}


def test_specify_names_each_destination_and_changes_no_service():
    assert steps(run(three_nodes(), host_choice='specify')) == [
        ('migrate', 'a', 'n1', 'n3'), ('migrate', 'b', 'n2', 'n3'),
        ('migrate', 'b2', 'n2', 'n3')]


def test_the_plan_uses_watchers_planner():
    strategy = node_resource_consolidation.NodeResourceConsolidation
    assert strategy.planner == 'node_resource_consolidation'
    assert strategy.parameters_spec['properties']['host_choice'][
        'default'] == 'auto'


def test_an_unknown_host_choice_is_refused():
    with pytest.raises(base.StrategyError, match='specify'):
        run(three_nodes(), host_choice='anywhere')


def test_disk_allocations_count_too():
    # Watcher checks vcpus and memory only; n2 has no disk left for a.
    cluster = c.build(
        [c.node('n1'), c.node('n2', disk_gb=100)],
        [c.server('a', 'n1', disk_gb=40),
         c.server('x', 'n2', disk_gb=40), c.server('y', 'n2', disk_gb=40)])
    found = steps(run(cluster, host_choice='specify'))
    assert ('migrate', 'a', 'n1', 'n2') not in found


def test_an_enabled_protected_node_makes_auto_name_destinations():
    cluster = c.build(
        [c.node('n1'), c.node('n2'), c.node('spare')],
        [c.server('a', 'n1'), c.server('b', 'n2'), c.server('b2', 'n2'),
         c.server('s', 'spare')])
    found = steps(run(cluster, protected={'spare'}))
    assert ('migrate', 'a', 'n1', 'n2') in found
    # The protected node is neither emptied nor disabled.
    assert not any('spare' in step for step in found)


def test_nothing_to_free_gives_an_empty_plan_with_indicators():
    full = c.build([c.node('n1', vcpus=2), c.node('n2', vcpus=2)],
                   [c.server('a', 'n1', vcpus=2),
                    c.server('b', 'n2', vcpus=2)])
    solution = run(full)
    assert solution.actions == []
    assert solution.indicator_values == {
        'compute_nodes_count': 2, 'released_compute_nodes_count': 0,
        'instance_migrations_count': 0}
    assert run(c.build([], [])).actions == []


def test_budget_and_hysteresis():
    assert len([s for s in steps(run(three_nodes(), max_migrations=2))
                if s[0] == 'migrate']) == 1
    # 3 nodes in use become 1: 66%.
    assert run(three_nodes(), min_improvement=67).actions == []
    assert run(three_nodes(), min_improvement=66).actions


def test_servers_nova_cannot_migrate_keep_their_node():
    cluster = c.build(
        [c.node('n1'), c.node('n2')],
        [c.server('a', 'n1', state='error'),
         c.server('x', 'n2'), c.server('y', 'n2')])
    found = steps(run(cluster, host_choice='specify'))
    assert found == [('migrate', 'x', 'n2', 'n1'),
                     ('migrate', 'y', 'n2', 'n1')]


# The shared packing.

def test_within_budget_all_counts_the_group():
    cluster = three_nodes()
    servers = cluster.instances_on('n3')
    no_limits = {}
    assert moves.Moves(cluster, no_limits).within_budget_all(servers)
    for key, limit in (('max_migrations', 2),
                       ('max_migrations_per_host', 2),
                       ('max_migrations_per_project', 2)):
        plan = moves.Moves(cluster, dict(no_limits, **{key: limit}))
        assert not plan.within_budget_all(servers)
        assert plan.within_budget_all(servers[:2])


def test_the_packer_never_overfills_and_undoes_a_failed_node():
    cluster = c.build(
        [c.node('n1', vcpus=5), c.node('n2', vcpus=4)],
        [c.server('a', 'n1', vcpus=2), c.server('b', 'n1', vcpus=2),
         c.server('x', 'n2', vcpus=1)])
    plan = moves.Moves(cluster, {})
    packer = consolidation.Packer(plan, ['n2', 'n1'])
    assert not packer.empty('n1')          # 3 vcpus free on n2, 4 needed
    assert plan.made == []
    assert packer.room['n2'][0] == 3
    assert packer.empty('n2')
    assert plan.free('n1', 'vcpus') == 0
    assert not packer.empty('n1')          # it received: it stays


def test_auto_empties_no_node_whose_servers_nova_could_not_place():
    # Nova picks the enabled node with the most free memory: y1 goes to
    # d1 (10 GiB free), y2 to d2 (9 GiB), and x (9 GiB) then fits on
    # neither, although the packing had put y1 and y2 together on d1.
    filler = [c.server('d1-%d' % i, 'd1') for i in range(11)] + [
        c.server('d2-%d' % i, 'd2') for i in range(11)] + [
        c.server('d2-small', 'd2', memory_mb=1024)]
    cluster = c.build(
        [c.node('d1'), c.node('d2'), c.node('e1'), c.node('e2'),
         c.node('e3')],
        filler + [c.server('y1', 'e1'), c.server('y2', 'e2'),
                  c.server('x', 'e3', vcpus=4, memory_mb=9216)])
    solution = run(cluster)
    migrated = [step[1] for step in steps(solution)
                if step[0] == 'migrate']
    # e3 stays, and with its room another node can go.
    assert 'x' not in migrated
    assert {'y1', 'y2'} <= set(migrated)
    assert _nova_places_all(cluster, solution)
    # Naming the destinations, the packing's plan holds: all three go.
    specified = run(cluster, host_choice='specify')
    assert sorted(step[1] for step in steps(specified)) == ['x', 'y1', 'y2']


def _nova_places_all(cluster, solution):
    """Whether a scheduler that picks the enabled node with the most
    free memory finds a node with room for every migration, in order."""
    disabled = {step[1] for step in steps(solution)
                if step[0] == 'disabled'}
    free = {h: {r: n.capacity(r) - cluster.used(h, r)
                for r in moves.RESOURCES}
            for h, n in cluster.nodes.items()
            if n.status == 'enabled' and h not in disabled}
    for action in solution.actions:
        if action.action_type != 'migrate':
            continue
        server = cluster.instance(action.input_parameters['resource_id'])
        fitting = [h for h in free if h != server.host and all(
            free[h][r] >= getattr(server, r) for r in moves.RESOURCES)]
        if not fitting:
            return False
        chosen = max(fitting, key=lambda h: free[h]['memory_mb'])
        for r in moves.RESOURCES:
            free[chosen][r] -= getattr(server, r)
            if server.host in free:
                free[server.host][r] += getattr(server, r)
    return True
