"""The pipeline planner's rules (watcher-specs audit-pipeline.rst,
"Pipeline Planner"): moves back and forth removed, chains collapsed only
when safe, earlier stages' constraints kept, conflicts refused, one plan
ordered stage after stage."""

import pytest

from watcher_ha.decision_engine.planner import pipeline
from watcher_ha.decision_engine.planner import weight
from watcher_ha.decision_engine.solution import ProposedAction

PLANNER = weight.WeightPlanner(weight.DEFAULT_WEIGHTS,
                               weight.DEFAULT_PARALLELIZATION)


def move(server, source, destination, kind='live'):
    return ProposedAction('migrate', {
        'resource_id': server, 'migration_type': kind,
        'source_node': source, 'destination_node': destination}, server)


def disable(node):
    return ProposedAction('change_nova_service_state', {
        'resource_id': node, 'resource_name': node, 'state': 'disabled',
        'disabled_reason': 'watcher_maintaining'})


def enable(node):
    return ProposedAction('change_nova_service_state', {
        'resource_id': node, 'resource_name': node, 'state': 'enabled'})


def power(node, state):
    return ProposedAction('change_node_power_state', {
        'resource_id': 'ironic-' + node, 'resource_name': node,
        'state': state})


def stop(server):
    return ProposedAction('stop', {'resource_id': server}, server)


def stages(*solutions):
    return [pipeline.Stage(position, 100 + position, tuple(actions), PLANNER)
            for position, actions in enumerate(solutions)]


def nothing_removed(position):
    return frozenset()


def removed_after_first(*hosts):
    return lambda position: frozenset(hosts) if position >= 1 \
        else frozenset()


def summary(planned):
    return [(a.action_type, a.input_parameters.get('resource_id'),
             a.input_parameters.get('source_node'),
             a.input_parameters.get('destination_node'),
             a.input_parameters.get('state'),
             planned.stage_of[a.uuid]) for a in planned.actions]


def test_a_move_there_and_back_removes_both():
    planned = pipeline.plan(stages([move('s1', 'A', 'B'),
                                    move('s2', 'A', 'C')],
                                   [move('s1', 'B', 'A')]),
                            nothing_removed)
    assert summary(planned) == [('migrate', 's2', 'A', 'C', None, 100)]
    assert planned.removed == [
        'stages 1 and 2: server s1 moved A -> B and back: neither move is '
        'kept']


def test_a_required_move_stays_and_the_move_back_goes():
    """A is under maintenance from stage 1: s1 must leave it; stage 2's
    move back would undo that."""
    planned = pipeline.plan(stages([disable('A'), move('s1', 'A', 'B')],
                                   [move('s1', 'B', 'A')]),
                            removed_after_first('A'))
    assert summary(planned) == [
        ('change_nova_service_state', 'A', None, None, 'disabled', 100),
        ('migrate', 's1', 'A', 'B', None, 100)]
    assert 'an earlier stage removed A' in planned.removed[0]


def test_a_chain_collapses_when_safe():
    planned = pipeline.plan(stages([disable('A'), move('s1', 'A', 'B')],
                                   [move('s1', 'B', 'C')]),
                            removed_after_first('A'))
    assert summary(planned) == [
        ('change_nova_service_state', 'A', None, None, 'disabled', 100),
        # Planned in stage 2, where C was chosen, after stage 1's end.
        ('migrate', 's1', 'A', 'C', None, 101)]
    assert planned.removed == ['stages 1 and 2: server s1 moved A -> B -> '
                               'C: one move A -> C']
    disabling, moving = planned.actions
    assert moving.parents == [disabling.uuid]


def test_a_chain_of_three_stages_collapses_to_one_move():
    planned = pipeline.plan(stages([move('s1', 'A', 'B')],
                                   [move('s1', 'B', 'C')],
                                   [move('s1', 'C', 'D')]), nothing_removed)
    assert summary(planned) == [('migrate', 's1', 'A', 'D', None, 102)]


def test_a_chain_of_two_kinds_is_kept():
    """A cold move then a live one: neither kind alone does both."""
    planned = pipeline.plan(stages([move('s1', 'A', 'B', 'cold')],
                                   [move('s1', 'B', 'C', 'live')]),
                            nothing_removed)
    assert summary(planned) == [('migrate', 's1', 'A', 'B', None, 100),
                                ('migrate', 's1', 'B', 'C', None, 101)]
    first, second = planned.actions
    assert second.parents == [first.uuid]
    assert planned.removed == []


def test_a_chain_with_an_action_on_the_server_in_between_is_kept():
    planned = pipeline.plan(stages([move('s1', 'A', 'B')],
                                   [stop('s1')],
                                   [move('s1', 'B', 'C', 'cold')]),
                            nothing_removed)
    assert [s[:4] for s in summary(planned)] == [
        ('migrate', 's1', 'A', 'B'), ('stop', 's1', None, None),
        ('migrate', 's1', 'B', 'C')]


def test_a_chain_ending_on_a_removed_host_keeps_the_first_move():
    planned = pipeline.plan(stages([move('s1', 'A', 'B'), disable('C')],
                                   [move('s1', 'B', 'C')]),
                            removed_after_first('C'))
    assert [s[:4] for s in summary(planned)] == [
        ('change_nova_service_state', 'C', None, None),
        ('migrate', 's1', 'A', 'B')]
    assert planned.removed == ['stage 2: the move of server s1 to C is not '
                               'kept: an earlier stage removed C']


def test_enabling_again_what_an_earlier_stage_disabled_is_not_kept():
    planned = pipeline.plan(stages([disable('A')], [enable('A')]),
                            removed_after_first('A'))
    assert [s[4] for s in summary(planned)] == ['disabled']
    assert planned.removed == ['stage 2: A is not enabled again: stage 1 '
                               'disabled it']


def test_powering_off_where_a_server_ends_fails():
    with pytest.raises(pipeline.PipelinePlanningFailed,
                       match='node C is powered off by stage 2 while '
                             r'server\(s\) s1 end on it'):
        pipeline.plan(stages([move('s1', 'A', 'C')], [power('C', 'off')]),
                      nothing_removed)


def test_powering_a_node_on_and_off_fails():
    with pytest.raises(pipeline.PipelinePlanningFailed,
                       match='node C is powered on and off by stages 1, 2'):
        pipeline.plan(stages([power('C', 'on')], [power('C', 'off')]),
                      nothing_removed)


def test_stages_run_in_order_each_after_the_last_of_the_one_before():
    planned = pipeline.plan(stages(
        [disable('A'), move('s1', 'A', 'B'), move('s2', 'A', 'C')],
        [move('s3', 'D', 'E')],
        [power('F', 'off')]), removed_after_first('A'))
    by_uuid = {a.uuid: a for a in planned.actions}
    kinds = {a.uuid: (a.action_type, a.input_parameters['resource_id'])
             for a in planned.actions}

    def parents(resource):
        [action] = [a for a in planned.actions
                    if a.input_parameters['resource_id'] == resource]
        return sorted(kinds[p] for p in action.parents)
    assert parents('A') == []
    assert parents('s1') == [('change_nova_service_state', 'A')]
    # Stage 2's first action waits for every end of stage 1.
    assert parents('s3') == [('migrate', 's1'), ('migrate', 's2')]
    assert parents('ironic-F') == [('migrate', 's3')]
    assert set(planned.stage_of) == set(by_uuid)
    assert sorted(planned.stage_of.values()) == [100, 100, 100, 101, 102]


def test_an_empty_stage_leaves_the_order_alone():
    planned = pipeline.plan(stages([move('s1', 'A', 'B')], [],
                                   [move('s2', 'C', 'D')]), nothing_removed)
    first, second = planned.actions
    assert second.parents == [first.uuid]
