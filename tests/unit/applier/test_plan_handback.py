"""An applier that stops hands its plans back: ONGOING plans become PENDING
with their interrupted actions left ONGOING, for the next applier to check
against the cloud before anything runs again; CANCELLING plans end
CANCELLED with what was left of them."""

import threading
import time

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from tests import factories
from watcher_ha.applier import fencing
from watcher_ha.applier import manager
from watcher_ha.applier import takeover
from watcher_ha.applier.actions import base as action_base
from watcher_ha.common.app_failover import members
from watcher_ha.common import context as watcher_context
from watcher_ha.db import models
from watcher_ha.db import plan_runs
from watcher_ha.service import ownership


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
    cancelling = _plan(db, 'CANCELLING',
                       action_states=('SUCCEEDED', 'PENDING', 'PENDING'))
    other = _plan(db, 'ONGOING', host='applier-2')
    handed, ended, _ = plan_runs.release(admin_context, 'applier-1')
    assert handed == [running['uuid']]
    [(uuid, end)] = ended
    assert (uuid, end.before, end.state) == (cancelling['uuid'],
                                             'CANCELLING', 'CANCELLED')
    assert sorted(state for _, state in end.cancelled) == [
        'PENDING', 'PENDING']
    assert _states(db, running) == (
        'PENDING', None, ['SUCCEEDED', 'ONGOING', 'PENDING'])
    assert _states(db, cancelling) == (
        'CANCELLED', 'applier-1', ['SUCCEEDED', 'CANCELLED', 'CANCELLED'])
    assert _states(db, other) == (
        'ONGOING', 'applier-2', ['SUCCEEDED', 'ONGOING', 'PENDING'])
    assert plan_runs.release(admin_context, 'applier-1') == ([], [], [])


def test_a_plan_being_cancelled_with_an_interrupted_action_is_handed_back(
        db, admin_context):
    """Its interrupted action (a migration Nova may finish) must not be
    recorded CANCELLED unchecked: the plan stays CANCELLING with no owner,
    for the applier that adopts it to ask the action first."""
    cancelling = _plan(db, 'CANCELLING')
    handed, ended, handed_cancelling = plan_runs.release(admin_context,
                                                         'applier-1')
    assert (handed, ended, handed_cancelling) == (
        [], [], [cancelling['uuid']])
    assert _states(db, cancelling) == (
        'CANCELLING', None, ['SUCCEEDED', 'ONGOING', 'PENDING'])


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
    runs_on = takeover.Takeover(
        admin_context, taken, 'applier-2', {'checked': _Checked},
        takeover.HANDED_BACK, 'applier-1', threading.Event()).settle()
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
    cancelling = _plan(db, 'CANCELLING',
                       action_states=('SUCCEEDED', 'PENDING', 'PENDING'))
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


def test_a_handed_back_plan_cancelled_by_its_operator_leaves_no_lie(
        db, admin_context, api):
    """Cancelled while waiting for an applier (PENDING), a plan handed
    back with an interrupted action: that action's effect is unknown, so
    it ends FAILED saying so, not CANCELLED (no CANCELLED action may have
    had an effect)."""
    plan = _plan(db, 'ONGOING')
    plan_runs.release(admin_context, 'applier-1')
    resp = api.patch('/v1/action_plans/' + plan['uuid'], body=[
        {'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}])
    assert resp.status == 200, resp
    assert _states(db, plan) == (
        'CANCELLED', None, ['SUCCEEDED', 'FAILED', 'CANCELLED'])
    with db.connect() as conn:
        messages = conn.execute(sa.select(models.Action.status_message)
                                .where(models.Action.action_plan_id
                                       == plan['id'])
                                .order_by(models.Action.id)).scalars().all()
    assert messages[1].startswith('interrupted when its applier stopped')


class _Timed(_Checked):
    """recover() answers NOT_DONE and notes when it was asked."""
    asked = []

    @classmethod
    def resources(cls, input_parameters):
        return {('server', 's1')}

    def recover(self, started_at):
        _Timed.asked.append(time.monotonic())
        return action_base.NOT_DONE


@pytest.fixture
def cancel_mode(config):
    config.config(group='watcher_applier', recovery='cancel',
                  takeover_grace=1)


def _stranded(db, admin_context, started_here):
    """A plan held by applier-1 whose ONGOING action another run let
    through its fence a moment ago; settled as stranded (as when its
    adoption's commit was not acknowledged)."""
    plan = _plan(db, 'ONGOING')
    # Timed from the fence's stamp: the wait ends takeover_grace after
    # it, however long the steps between take on a loaded machine.
    started = time.monotonic()
    with db.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.action_plan_id == plan['id']).values(
                action_type='timed', input_parameters={},
                fenced_at=models.utcnow()))
    ongoing = [a for a in plan_runs.actions_of(admin_context, plan)
               if a['state'] == 'ONGOING']
    _Timed.asked = []
    runs_on = takeover.Takeover(
        admin_context, plan_runs.get(admin_context, plan['uuid']),
        'applier-1', {'timed': _Timed}, ownership.STRANDED, 'applier-1',
        threading.Event(),
        {a['uuid'] for a in ongoing} if started_here else set()).settle()
    return plan, runs_on, _Timed.asked[0] - started


def test_a_stranded_plan_whose_action_ran_elsewhere_is_a_lost_ones(
        db, admin_context, cancel_mode):
    """Not started by this process, its interrupted action may have a
    call on the wire: the applier waits for it to land before looking,
    and resolves the plan by the recovery mode (cancel), where it used to
    resume it at once, running the action again."""
    plan, runs_on, waited = _stranded(db, admin_context, started_here=False)
    assert not runs_on
    assert waited >= 0.8
    assert _states(db, plan)[0] == 'CANCELLED'
    assert _states(db, plan)[2] == ['SUCCEEDED', 'CANCELLED', 'CANCELLED']


def test_a_stranded_plan_whose_action_ran_here_resumes_at_once(
        db, admin_context, cancel_mode):
    plan, runs_on, waited = _stranded(db, admin_context, started_here=True)
    assert runs_on
    assert waited < 0.5
    assert _states(db, plan)[2] == ['SUCCEEDED', 'PENDING', 'PENDING']


def test_an_application_failover_adopted_runs_on_whatever_recovery_says(
        db, admin_context, cancel_mode):
    """recovery = cancel ends the plan of a lost applier, but not an
    application's failover, as it does not end instance HA's recoveries:
    cancelled past its eviction, the application would be left with no
    active member and its volumes attached to nobody."""
    with db.connect() as conn:
        strategy = conn.execute(sa.select(models.Strategy.id).where(
            models.Strategy.name == members.STRATEGY)).scalar_one()
    audit = factories.audit(db, audit_type='EVENT', strategy_id=strategy)
    # Adopted by applier-1 from applier-2.
    plan, _ = factories.action_plan(
        db, audit, state='ONGOING', hostname='applier-1',
        kinds=[('timed', {})] * 3,
        action_states=['SUCCEEDED', 'ONGOING', 'PENDING'])
    runs_on = takeover.Takeover(
        admin_context, plan_runs.get(admin_context, plan['uuid']),
        'applier-1', {'timed': _Timed}, ownership.ADOPTED, 'applier-2',
        threading.Event()).settle()
    assert runs_on
    assert _states(db, plan)[2] == ['SUCCEEDED', 'PENDING', 'PENDING']


class _Waiting(_Timed):
    """recover() waits (as a migration under way is waited for) until
    aborted, then fails as an aborted wait does."""
    waiting = threading.Event()

    def recover(self, started_at):
        _Waiting.waiting.set()
        self._aborted.wait(10)
        raise action_base.ActionError('aborted while waiting for the server')


def test_a_check_cut_short_leaves_the_action_to_the_next_runner(
        db, admin_context):
    """The applier stops, or loses the plan, while recover() waits: what
    the cut-short check says is nothing, so the action stays ONGOING for
    whoever settles the plan next (it used to end FAILED, its effect
    'unknown')."""
    plan = _plan(db, 'ONGOING')
    with db.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.action_plan_id == plan['id']).values(
                action_type='waiting', input_parameters={}))
    _Waiting.waiting.clear()
    settling = takeover.Takeover(
        admin_context, plan_runs.get(admin_context, plan['uuid']),
        'applier-1', {'waiting': _Waiting}, ownership.STRANDED, 'applier-1',
        threading.Event())
    outcome = []

    def settle():
        try:
            outcome.append(settling.settle())
        except fencing.Fenced as err:
            outcome.append(err)
    thread = threading.Thread(target=settle)
    thread.start()
    assert _Waiting.waiting.wait(10)
    settling.halt.abort('the plan was taken over')
    thread.join(10)
    assert isinstance(outcome[0], fencing.Fenced)
    assert _states(db, plan) == (
        'ONGOING', 'applier-1', ['SUCCEEDED', 'ONGOING', 'PENDING'])


# A take-over whose database connection is lost at one of its commits
# (issue 32, item 3): the self-check that looks at the plan again must
# carry out what the take-over chose, never resume a plan it was
# cancelling.

class _Moved(action_base.Action):
    """Moves a server, its ``resource_id`` (it touches the cloud);
    interrupted, recover() answers the verdict its parameters name; run,
    it notes its server in ``ran``."""
    name = 'moved'
    ran = []

    def execute(self):
        _Moved.ran.append(self.input_parameters['resource_id'])

    def recover(self, started_at):
        return self.input_parameters['verdict']


class _Lost:
    """Loses the connection of one call of plan_runs.``name`` (its
    ``nth``): ``before`` the call runs (nothing is written) or ``after``
    it committed (the caller cannot tell)."""

    def __init__(self, monkeypatch, name, when, nth=1):
        self.real = getattr(plan_runs, name)
        self.when = when
        self.calls = 0
        self.nth = nth
        self.fired = False
        monkeypatch.setattr(plan_runs, name, self)

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls != self.nth:
            return self.real(*args, **kwargs)
        self.fired = True
        if self.when == 'after':
            self.real(*args, **kwargs)
        raise db_exc.DBConnectionError('connection lost (%s)' % self.when)


def _adopted_plan(db, interrupted_verdict):
    """A plan applier-1 ran when it died: its first action done, its
    second interrupted (recover() answers ``interrupted_verdict``; None:
    it was between actions, the second not begun), its third to do."""
    plan = _plan(db, 'ONGOING', action_states=(
        'SUCCEEDED', 'PENDING' if interrupted_verdict is None else 'ONGOING',
        'PENDING'))
    with db.begin() as conn:
        for index, action in enumerate(plan_runs.actions_of(
                watcher_context.admin_context(), plan)):
            conn.execute(sa.update(models.Action).where(
                models.Action.id == action['id']).values(
                    action_type='moved', input_parameters={
                        'resource_id': 'vm-%d' % index,
                        'verdict': interrupted_verdict or 'not done'}))
    return plan


def _take_over(plans, uuid, gone, rounds=4):
    """What the ownership engine does to a plan of a gone applier: adopt
    it (its next look tries again if the adoption failed) and settle it;
    then, while the plan is held here and nothing works on it, the
    self-check looks at it again. Errors end the job, as in the engine."""
    context = watcher_context.admin_context()
    for _ in range(rounds):
        plan = plan_runs.get(context, uuid)
        if plan['state'] not in plan_runs.RUNNING:
            return
        try:
            if plan['hostname'] == gone:
                if plans.adopt(context, ownership.Held(uuid, gone), gone):
                    plans.resume(uuid, ownership.ADOPTED, gone)
            else:
                plans.resume(uuid, ownership.STRANDED, plans.host)
        except db_exc.DBError:
            pass


# (the call whose connection is lost, when, what recover() answers for
# the interrupted action: None when no action was running)
TAKE_OVER_CUTS = [
    (name, when, verdict)
    for name in ('adopt', 'move_action', 'finish')
    for when in ('before', 'after')
    for verdict in (action_base.NOT_DONE, action_base.DONE)
] + [('adopt', when, None) for when in ('before', 'after')] + [
    ('finish', when, None) for when in ('before', 'after')]


@pytest.mark.parametrize('name,when,verdict', TAKE_OVER_CUTS)
def test_a_cancelling_take_over_cut_at_any_commit_still_cancels(
        db, cancel_mode, monkeypatch, name, when, verdict):
    """recovery = cancel. The plan ends CANCELLED and nothing more runs,
    whichever commit of its take-over was lost: the self-check used to
    take a plan whose end's commit was lost, with no interrupted action
    left, for a run stopped short here, and resumed it to SUCCEEDED."""
    plan = _adopted_plan(db, verdict)
    lost = _Lost(monkeypatch, name, when)
    _Moved.ran = []
    plans = manager.ApplierManager('applier-2').plans
    plans.actions = {'moved': _Moved}
    _take_over(plans, plan['uuid'], 'applier-1')
    assert lost.fired
    assert _Moved.ran == []
    interrupted = ('SUCCEEDED' if verdict == action_base.DONE
                   else 'CANCELLED')
    assert _states(db, plan) == (
        'CANCELLED', 'applier-2', ['SUCCEEDED', interrupted, 'CANCELLED'])


def test_a_plan_handed_back_after_a_lost_cancel_is_not_resumed(
        db, cancel_mode, monkeypatch):
    """The applier whose settling cancelled the interrupted action (the
    plan's end lost) stops before its self-check: the plan goes back
    PENDING with that CANCELLED action, and the applier that takes it
    must not run the rest (a handed-back plan otherwise runs on)."""
    plan = _adopted_plan(db, action_base.NOT_DONE)
    _Lost(monkeypatch, 'finish', 'before')
    _Moved.ran = []
    settling = manager.ApplierManager('applier-2').plans
    settling.actions = {'moved': _Moved}
    context = watcher_context.admin_context()
    assert settling.adopt(context, ownership.Held(plan['uuid'], 'applier-1'),
                          'applier-1')
    with pytest.raises(db_exc.DBConnectionError):
        settling.resume(plan['uuid'], ownership.ADOPTED, 'applier-1')
    settling.release(context)
    taker = manager.ApplierManager('applier-3').plans
    taker.actions = {'moved': _Moved}
    taker.take(plan['uuid'])
    assert _Moved.ran == []
    assert _states(db, plan) == (
        'CANCELLED', 'applier-3', ['SUCCEEDED', 'CANCELLED', 'CANCELLED'])
