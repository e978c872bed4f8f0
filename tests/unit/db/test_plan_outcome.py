"""A plan with a CANCELLED or FAILED action never ends SUCCEEDED (issue
32, item 3): the action plan machine guards the move, so the
compare-and-swap itself refuses it whoever asks, and the applier's
finish() ends such a plan CANCELLED or FAILED instead."""

import pytest

from tests import factories
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import plan_runs
from watcher_ha.db import transitions

HOST = 'applier-1'


def _running(db, *action_states):
    """An ONGOING plan HOST runs, its actions in ``action_states``."""
    return factories.action_plan(
        db, factories.audit(db), state=ActionPlanState.ONGOING,
        hostname=HOST, action_states=action_states,
        kinds=[('nop', {'message': 'it %s' % state.lower()})
               for state in action_states])


def _row(context, plan):
    row = plan_runs.get(context, plan['uuid'])
    return row['state'], row['status_message'], [
        a['state'] for a in plan_runs.actions_of(context, plan)]


def test_the_machine_guards_success_by_the_plans_actions():
    guard = state_machines.ACTION_PLAN.guard_of(ActionPlanState.SUCCEEDED)
    assert guard.children == state_machines.ACTION.name
    assert guard.refused == {ActionState.CANCELLED, ActionState.FAILED}
    assert state_machines.ACTION_PLAN.guard_of(
        ActionPlanState.CANCELLED) is None


@pytest.mark.parametrize('other,moves', [
    (ActionState.SUCCEEDED, True), (ActionState.SKIPPED, True),
    (ActionState.CANCELLED, False), (ActionState.FAILED, False)])
def test_the_compare_and_swap_refuses_success_over_such_an_action(
        db, admin_context, other, moves):
    plan, _ = _running(db, ActionState.SUCCEEDED, other)
    with engine.writer.using(admin_context) as session:
        moved = transitions.write(
            session, models.ActionPlan,
            [models.ActionPlan.id == plan['id']],
            target=ActionPlanState.SUCCEEDED)
    assert moved == int(moves)
    assert _row(admin_context, plan)[0] == (
        'SUCCEEDED' if moves else 'ONGOING')


@pytest.mark.parametrize('other,ends', [
    (ActionState.CANCELLED, ActionPlanState.CANCELLED),
    (ActionState.FAILED, ActionPlanState.FAILED)])
def test_a_plan_asked_to_succeed_over_such_an_action_ends_as_it_did(
        db, admin_context, other, ends):
    plan, actions = _running(db, ActionState.SUCCEEDED, other,
                             ActionState.PENDING)
    ended = plan_runs.finish(admin_context, plan, HOST,
                             ActionPlanState.SUCCEEDED)
    assert (ended.before, ended.state) == ('ONGOING', ends)
    assert actions[1]['uuid'] in ended.message
    assert ended.cancelled == [(actions[2]['uuid'], ActionState.PENDING)]
    assert _row(admin_context, plan) == (ends, ended.message,
                                         ['SUCCEEDED', other, 'CANCELLED'])


def test_a_cancelled_action_outweighs_a_failed_one(db, admin_context):
    """Both: an earlier settling cancelled the plan (recovery = cancel),
    failing the action it could not check: the plan ends as it chose."""
    plan, _ = _running(db, ActionState.FAILED, ActionState.CANCELLED)
    ended = plan_runs.finish(admin_context, plan, HOST,
                             ActionPlanState.SUCCEEDED)
    assert ended.state == ActionPlanState.CANCELLED


def test_a_plan_whose_actions_succeeded_or_were_skipped_succeeds(
        db, admin_context):
    plan, _ = _running(db, ActionState.SUCCEEDED, ActionState.SKIPPED)
    ended = plan_runs.finish(admin_context, plan, HOST,
                             ActionPlanState.SUCCEEDED)
    assert (ended.state, ended.message) == ('SUCCEEDED', None)
