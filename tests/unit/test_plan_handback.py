"""An applier that stops hands its plans back: ONGOING plans become PENDING
with their interrupted actions left ONGOING, for the next applier to check
against the cloud before anything runs again; CANCELLING plans end
CANCELLED with what was left of them."""

import threading

import sqlalchemy as sa

from tests import factories
from watcher_ha.applier import manager
from watcher_ha.applier import recovery
from watcher_ha.applier.actions import base as action_base
from watcher_ha.db import models
from watcher_ha.db import plan_runs


def _plan(db, state, host='applier-1', action_states=('SUCCEEDED',
                                                       'ONGOING', 'PENDING')):
    plan, actions = factories.action_plan(db, factories.audit(db),
                                          state=state,
                                          actions=len(action_states))
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == plan['id']).values(hostname=host))
        for action, action_state in zip(actions, action_states):
            conn.execute(sa.update(models.Action).where(
                models.Action.id == action['id']).values(
                    state=action_state))
    return plan


def _states(db, plan):
    with db.connect() as conn:
        row = conn.execute(sa.select(
            models.ActionPlan.state, models.ActionPlan.hostname).where(
                models.ActionPlan.id == plan['id'])).one()
        actions = conn.execute(sa.select(models.Action.state).where(
            models.Action.action_plan_id == plan['id']).order_by(
                models.Action.id)).scalars().all()
    return row.state, row.hostname, actions


def test_release_hands_back_ongoing_and_ends_cancelling(db, admin_context):
    running = _plan(db, 'ONGOING')
    cancelling = _plan(db, 'CANCELLING')
    other = _plan(db, 'ONGOING', host='applier-2')
    handed, ended = plan_runs.release(admin_context, 'applier-1')
    assert handed == [running['uuid']]
    [(uuid, end)] = ended
    assert (uuid, end.before, end.state) == (cancelling['uuid'],
                                             'CANCELLING', 'CANCELLED')
    assert sorted(state for _, state in end.cancelled) == [
        'ONGOING', 'PENDING']
    assert _states(db, running) == (
        'PENDING', None, ['SUCCEEDED', 'ONGOING', 'PENDING'])
    assert _states(db, cancelling) == (
        'CANCELLED', 'applier-1', ['SUCCEEDED', 'CANCELLED', 'CANCELLED'])
    assert _states(db, other) == (
        'ONGOING', 'applier-2', ['SUCCEEDED', 'ONGOING', 'PENDING'])
    assert plan_runs.release(admin_context, 'applier-1') == ([], [])


class _Checked(action_base.Action):
    """Answers recover() with a verdict its parameters name."""

    @classmethod
    def validate(cls, input_parameters):
        pass

    def execute(self):
        raise AssertionError('an interrupted action must not run again '
                             'before it is checked')

    def recover(self, started_at):
        return self.input_parameters['verdict']


def _taken(db, admin_context, verdict):
    plan = _plan(db, 'ONGOING')
    with db.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.action_plan_id == plan['id']).values(
                action_type='checked',
                input_parameters={'verdict': verdict}))
    plan_runs.release(admin_context, 'applier-1')
    taken = plan_runs.claim(admin_context, plan['uuid'], 'applier-2')
    runs_on = recovery.Recovery(
        admin_context, taken, 'applier-2', {'checked': _Checked},
        recovery.HANDED_BACK, 'applier-1', threading.Event()).settle()
    return plan, runs_on


def test_interrupted_action_done_in_the_cloud_succeeds(db, admin_context):
    plan, runs_on = _taken(db, admin_context, action_base.DONE)
    assert runs_on
    assert _states(db, plan) == (
        'ONGOING', 'applier-2', ['SUCCEEDED', 'SUCCEEDED', 'PENDING'])


def test_interrupted_action_not_done_runs_again(db, admin_context):
    plan, runs_on = _taken(db, admin_context, action_base.NOT_DONE)
    assert runs_on
    assert _states(db, plan) == (
        'ONGOING', 'applier-2', ['SUCCEEDED', 'PENDING', 'PENDING'])


def test_interrupted_action_that_cannot_tell_fails_the_plan(db,
                                                           admin_context):
    plan, runs_on = _taken(db, admin_context, action_base.UNKNOWN)
    assert not runs_on
    state, host, actions = _states(db, plan)
    assert (state, host) == ('FAILED', 'applier-2')
    assert actions == ['SUCCEEDED', 'FAILED', 'CANCELLED']


def test_a_stopping_applier_announces_the_cancel_it_carries_out(
        db, admin_context, notifications):
    cancelling = _plan(db, 'CANCELLING')
    with db.connect() as conn:
        actions = dict(conn.execute(sa.select(
            models.Action.uuid, models.Action.state).where(
                models.Action.action_plan_id == cancelling['id'])).all())
    manager.ApplierManager('applier-1').stop(timeout=2)
    sent = [(message['event_type'],
             message['payload']['watcher_object.data'])
            for _, message, _, _ in notifications]
    assert [event for event, _ in sent
            if event.startswith('action_plan.')] == [
        'action_plan.cancel.start', 'action_plan.update',
        'action_plan.cancel.end']
    updated = {data['uuid']: data['state_update']['watcher_object.data']
               for event, data in sent if event == 'action.update'}
    assert updated == {
        uuid: {'old_state': state, 'state': 'CANCELLED',
               'status_message': None}
        for uuid, state in actions.items() if state != 'SUCCEEDED'}
