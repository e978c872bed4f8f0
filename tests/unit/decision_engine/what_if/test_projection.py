"""A plan's actions run on a copy of the compute model
(decision_engine/what_if/): per host before and after, the worst moment
in the planner's order, and what each action type does."""

import pytest

from tests import strategy_clusters as clusters
from watcher_ha.decision_engine.goal import server_consolidation
from watcher_ha.decision_engine.what_if import effects
from watcher_ha.decision_engine.what_if import projection
from watcher_ha.decision_engine.what_if import report


def action(uuid, action_type, parents=(), **parameters):
    return {'uuid': uuid, 'action_type': action_type,
            'input_parameters': parameters, 'parents': list(parents)}


def migrate(uuid, server, source, destination, parents=()):
    return action(uuid, 'migrate', parents, resource_id='uuid-' + server,
                  migration_type='live', source_node=source,
                  destination_node=destination)


def cloud(*hosts, servers=()):
    """Hosts of 8 vcpus, 16 GiB, 1 TB; ``servers``: (name, host, vcpus,
    memory_mb) with 10 GB of disk each."""
    return clusters.build(
        [clusters.node(name, vcpus=8, memory_mb=16384) for name in hosts],
        [clusters.server(name, host, vcpus=vcpus, memory_mb=memory,
                         disk_gb=10)
         for name, host, vcpus, memory in servers])


def test_a_migration_moves_what_its_server_holds():
    state = cloud('a', 'b', servers=[('s', 'a', 2, 4096),
                                     ('t', 'a', 1, 1024)])
    run = projection.Projection(state, [migrate('1', 's', 'a', 'b')])
    assert run.used_before == {'a': (3, 5120, 20), 'b': (0, 0, 0)}
    assert run.used == {'a': [1, 1024, 10], 'b': [2, 4096, 10]}
    assert run.after.instance('uuid-s').host == 'b'
    assert run.changed_hosts() == ['a', 'b']
    # The model itself is not changed.
    assert state.instance('uuid-s').host == 'a'
    assert run.moved()[0][1:] == ('a', 'b')


def test_a_resize_changes_what_its_server_holds():
    state = cloud('a', servers=[('s', 'a', 2, 4096)])
    run = projection.Projection(
        state, [action('1', 'resize', resource_id='uuid-s', flavor='big')],
        flavors={'big': (4, 8192, 40)})
    assert run.used['a'] == [4, 8192, 40]
    # Nova holds the old and the new size on the host until it confirms.
    assert run.worst.percent == pytest.approx(75.0)
    assert run.after.instance('uuid-s').vcpus == 4


def test_a_resize_to_an_unknown_flavor_is_not_projected():
    state = cloud('a', servers=[('s', 'a', 2, 4096)])
    run = projection.Projection(
        state, [action('1', 'resize', resource_id='uuid-s', flavor='nope')],
        flavors={})
    [outcome] = run.outcomes
    assert outcome.effect.outcome == effects.NOT_PROJECTED
    assert 'flavor nope is unknown' in outcome.effect.note
    assert run.used['a'] == [2, 4096, 10]


@pytest.mark.parametrize('kind', ['shelve', 'delete'])
def test_a_shelve_or_a_delete_frees_the_host(kind):
    state = cloud('a', servers=[('s', 'a', 2, 4096), ('t', 'a', 1, 1024)])
    run = projection.Projection(state, [action('1', kind,
                                               resource_id='uuid-s')])
    assert run.used['a'] == [1, 1024, 10]
    assert dict(run.after.placement['a']).keys() == {'uuid-t'}
    if kind == 'delete':
        assert run.after.instance('uuid-s') is None
    else:
        assert run.after.instance('uuid-s').host is None


def test_steps_follow_the_parents():
    actions = [action('1', 'nop'), action('2', 'nop'),
               action('3', 'nop', ['1']), action('4', 'nop', ['3', '2']),
               action('5', 'nop', ['elsewhere'])]
    assert [[a['uuid'] for a in step]
            for step in projection.steps(actions)] == [
        ['1', '2', '5'], ['3'], ['4']]
    with pytest.raises(projection.Cycle):
        projection.steps([action('1', 'nop', ['2']),
                          action('2', 'nop', ['1'])])


def test_the_worst_moment_is_found_mid_plan_across_parallel_lanes():
    """Two lanes: one fills ``b`` from ``a``, the other empties ``b``
    onto ``c``, one step behind. ``b`` is fullest after the second step,
    while the third runs; the plan ends with ``b`` at half."""
    state = cloud('a', 'b', 'c', servers=[
        ('a1', 'a', 2, 1024), ('a2', 'a', 2, 1024), ('a3', 'a', 2, 1024),
        ('b1', 'b', 2, 1024), ('b2', 'b', 2, 1024), ('b3', 'b', 2, 1024)])
    actions = [
        # Lane 1: a -> b.
        migrate('l1-1', 'a1', 'a', 'b'),
        migrate('l1-2', 'a2', 'a', 'b', ['l1-1']),
        migrate('l1-3', 'a3', 'a', 'b', ['l1-2']),
        # Lane 2 waits two steps (a sleep), then b -> c.
        action('l2-0', 'sleep', duration=1),
        action('l2-1', 'sleep', ['l2-0'], duration=1),
        migrate('l2-2', 'b1', 'b', 'c', ['l2-1']),
        migrate('l2-3', 'b2', 'b', 'c', ['l2-2']),
        migrate('l2-4', 'b3', 'b', 'c', ['l2-3']),
    ]
    run = projection.Projection(state, actions)
    worst = run.worst
    # Step 3: b holds b1..b3, a1, a2 and a3 arriving: 12 of 8 vcpus...
    assert (worst.host, worst.step) == ('b', 3)
    assert worst.action['uuid'] == 'l1-3'
    assert worst.percent == pytest.approx(150.0)
    assert worst.resource == 'vcpus'
    assert worst.running == 2
    # ... and half of it once the plan ended.
    assert run.used['b'] == [6, 3072, 30]
    assert run.used['c'] == [6, 3072, 30]
    assert projection.load_of(run.used['b'], run.capacity['b'])[0] == 75.0


def test_a_move_without_destination_goes_where_nova_would_put_it():
    state = cloud('a', 'b', 'c', servers=[('s', 'a', 2, 4096),
                                          ('t', 'b', 1, 8192)])
    run = projection.Projection(state, [migrate('1', 's', 'a', None)])
    # c has the most free memory.
    assert run.after.instance('uuid-s').host == 'c'
    assert 'projected on c' in run.outcomes[0].effect.note


def test_a_host_disabled_by_the_plan_receives_nothing_after():
    state = cloud('a', 'b', 'c', servers=[('s', 'a', 2, 4096),
                                          ('t', 'b', 1, 8192)])
    actions = [action('1', 'change_nova_service_state', resource_name='c',
                      state='disabled'),
               migrate('2', 's', 'a', None, ['1'])]
    run = projection.Projection(state, actions)
    assert run.after.node('c').status == 'disabled'
    assert run.after.instance('uuid-s').host == 'b'


def test_what_changed_since_the_plan_is_named_and_projected_from_now():
    state = cloud('a', 'b', 'c', servers=[('s', 'b', 2, 4096)])
    actions = [migrate('1', 's', 'a', 'c'), migrate('2', 'gone', 'a', 'c'),
               migrate('3', 's', 'c', 'c', ['1'])]
    run = projection.Projection(state, actions)
    differences = [text for _, text in run.differences()]
    assert differences == [
        'server uuid-s is on b, not on a (its source_node): projected '
        'from b',
        'server uuid-gone is not in the model (deleted since the plan was '
        'made?)',
        'server uuid-s is on c already']
    assert run.used['b'] == [0, 0, 0] and run.used['c'] == [2, 4096, 10]


def test_an_evacuation_goes_to_the_reserved_host_its_claim_packs_it_on():
    state = cloud('failed', 'spare-1', 'spare-2',
                  servers=[('s', 'failed', 2, 4096)])
    actions = [
        action('1', 'force_host_down', resource_name='failed'),
        action('2', 'claim_reserved_hosts', ['1'], notification_uuid='n',
               segment_uuid='seg', source_node='failed',
               servers={'uuid-s': {'vcpus': 2, 'memory_mb': 4096,
                                   'disk_gb': 10}},
               capacity={'spare-1': {'vcpus': 1, 'memory_mb': 1,
                                     'disk_gb': 1},
                         'spare-2': {'vcpus': 8, 'memory_mb': 16384,
                                     'disk_gb': 100}}),
        action('3', 'evacuate', ['2'], resource_id='uuid-s',
               source_node='failed', destination_node=None,
               destination_from_claim=True)]
    run = projection.Projection(state, actions)
    assert run.after.node('failed').state == 'down'
    assert run.after.instance('uuid-s').host == 'spare-2'
    assert run.held == ('spare-2',)


def test_actions_without_a_rule_are_listed_as_not_projected():
    state = cloud('a', servers=[('s', 'a', 2, 4096)])
    run = projection.Projection(state, [
        action('1', 'nop', message='x'), action('2', 'sleep', duration=1),
        action('3', 'volume_migrate', resource_id='v')])
    shown = report._actions(run)
    assert shown['projected'] == {}
    assert shown['not_projected'] == [
        {'action_type': kind, 'count': 1, 'why': effects.NO_RULE}
        for kind in ('nop', 'sleep', 'volume_migrate')]
    assert run.changed_hosts() == [] and run.worst is None


def test_the_goal_tells_its_indicators_from_the_projection():
    state = cloud('a', 'b', 'c', servers=[('s', 'a', 2, 4096),
                                          ('t', 'b', 1, 1024)])
    run = projection.Projection(state, [migrate('1', 's', 'a', 'b')])
    told = server_consolidation.ServerConsolidation.projected_indicators(
        report.Projected(run))
    assert told == {'compute_nodes_count': 3,
                    'released_compute_nodes_count': 1,
                    'instance_migrations_count': 1}
