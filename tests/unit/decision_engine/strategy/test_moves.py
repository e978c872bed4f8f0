"""The bookkeeping every server-moving strategy plans through."""

from tests import strategy_clusters as c
from watcher_ha.decision_engine.goal import dummy
from watcher_ha.decision_engine import solution as solution_mod
from watcher_ha.decision_engine.strategy import moves

NO_LIMITS = {'max_migrations': 0, 'max_migrations_per_host': 0,
             'max_migrations_per_project': 0, 'min_improvement': 0}


def snapshot():
    return c.build(
        [c.node('n1', vcpus=4, memory_mb=8192),
         c.node('n2', vcpus=4, memory_mb=8192),
         c.node('off', status='disabled'),
         c.node('down', state='down'),
         c.node('spare')],
        [c.server('a', 'n1', vcpus=2, memory_mb=4096),
         c.server('b', 'n1', vcpus=2, memory_mb=4096, project_id='p2'),
         c.server('c', 'n2', vcpus=2, memory_mb=6144),
         c.server('pinned', 'n2', pinned_availability_zone='az9')])


def test_room_follows_the_moves_and_never_overfills():
    cluster = snapshot()
    plan = moves.Moves(cluster, NO_LIMITS)
    a, b = cluster.instance('uuid-a'), cluster.instance('uuid-b')
    assert plan.fits(a, 'n2') is False           # 2048 MB left, needs 4096
    assert plan.fits(a, 'n1') is False           # where it already is
    plan.move(cluster.instance('uuid-c'), 'spare')
    assert plan.free('n2', 'memory_mb') == 8192 - 2048
    assert plan.fits(a, 'n2')
    plan.move(a, 'n2')
    assert not plan.fits(b, 'n2')                # 6144 - 4096 < 4096
    assert [i.name for i in plan.instances_on('n2')] == ['a', 'pinned']
    assert [i.name for i in plan.instances_on('n1')] == ['b']
    assert plan.host_of(a) == 'n2'


def test_disabled_down_and_protected_hosts_are_never_destinations():
    cluster = snapshot()
    plan = moves.Moves(cluster, NO_LIMITS, protected={'spare'})
    a = cluster.instance('uuid-a')
    assert sorted(plan.destinations()) == ['n1', 'n2']
    for hostname in ('off', 'down', 'spare'):
        assert not plan.fits(a, hostname)


def test_a_pinned_server_stays_in_its_zone():
    cluster = snapshot()
    plan = moves.Moves(cluster, NO_LIMITS)
    assert not plan.fits(cluster.instance('uuid-pinned'), 'spare')


def test_budget_overall_per_host_and_per_project():
    cluster = snapshot()
    a, b, c_ = (cluster.instance('uuid-' + n) for n in 'abc')
    plan = moves.Moves(cluster, dict(NO_LIMITS, max_migrations_per_host=1))
    plan.move(a, 'spare')
    assert not plan.within_budget(b)             # n1 gave one already
    assert plan.within_budget(c_)
    plan = moves.Moves(cluster, dict(NO_LIMITS,
                                     max_migrations_per_project=1))
    plan.move(a, 'spare')
    assert not plan.within_budget(c_)            # same project as a
    assert plan.within_budget(b)                 # p2
    plan = moves.Moves(cluster, dict(NO_LIMITS, max_migrations=2))
    assert plan.budget_left() == 2
    plan.move(a, 'spare')
    plan.move(b, 'spare')
    assert plan.budget_left() == 0 and not plan.within_budget(c_)
    assert moves.Moves(cluster, NO_LIMITS).budget_left() is None


def test_a_server_moved_back_is_home_again():
    cluster = snapshot()
    plan = moves.Moves(cluster, NO_LIMITS)
    a = cluster.instance('uuid-a')
    plan.move(a, 'spare')
    plan.move(a, 'n1')
    assert plan.host_of(a) == 'n1'
    assert [i.name for i in plan.instances_on('n1')] == ['a', 'b']
    assert plan.instances_on('spare') == []
    assert plan.free('spare', 'vcpus') == 16


def test_moves_become_migrate_actions_in_order():
    cluster = snapshot()
    plan = moves.Moves(cluster, NO_LIMITS)
    plan.move(cluster.instance('uuid-b'), 'spare', 'cold')
    plan.move(cluster.instance('uuid-a'), 'spare')
    solution = solution_mod.Solution('s', dummy.Dummy)
    plan.add_to(solution)
    assert [(a.input_parameters['resource_name'],
             a.input_parameters['migration_type'],
             a.input_parameters['source_node'],
             a.input_parameters['destination_node'])
            for a in solution.actions] == [('b', 'cold', 'n1', 'spare'),
                                          ('a', 'live', 'n1', 'spare')]


def test_migration_type_follows_the_vm_state():
    assert moves.migration_type(c.server('x', 'n1')) == 'live'
    assert moves.migration_type(c.server('x', 'n1', state='paused')) == \
        'live'
    assert moves.migration_type(c.server('x', 'n1', state='stopped')) == \
        'cold'
    assert moves.migration_type(c.server('x', 'n1',
                                         state='suspended')) is None


def test_hysteresis():
    assert moves.improved_enough(10, 10, NO_LIMITS)
    margin = dict(NO_LIMITS, min_improvement=10)
    assert moves.improved_enough(10, 9, margin)
    assert not moves.improved_enough(10, 9.5, margin)
    assert moves.improved_enough(5, 6, margin, lower_is_better=False) \
        is True
    assert not moves.improved_enough(0, 0, margin)


def test_parameters_spec_adds_the_budget_once():
    spec = moves.parameters_spec({'x': {'type': 'integer'}}, ['x'])
    assert set(spec['properties']) == {'x'} | set(moves.BUDGET_PARAMETERS)
    assert spec['required'] == ['x']
