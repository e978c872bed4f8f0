"""Executing a plan in-process on SQLite: how it ends when a cancel comes
in at its last moment, what a rollback reverts, and the fence before
every call to the cloud."""

import threading

import pytest
import sqlalchemy as sa

from tests import factories
from watcher_ha.applier import fencing
from watcher_ha.applier import manager
from watcher_ha.applier import workflow
from watcher_ha.applier.actions import base as action_base
from watcher_ha.cloud import clients
from watcher_ha.db import models
from watcher_ha.db import plan_runs

HOST = 'applier-1'


class Recorder(action_base.Action):
    """Writes what happens to it in ``journal``; its parameters say where
    it fails (``fail``: pre, execute) and which resource it touches."""
    name = 'recorder'
    journal = []

    @classmethod
    def validate(cls, input_parameters):
        pass

    @classmethod
    def resources(cls, input_parameters):
        return {('server', input_parameters['name'])}

    def pre_condition(self):
        if self.input_parameters.get('fail') == 'pre':
            raise action_base.ActionError(
                '%s is not where the plan says' % self.input_parameters[
                    'name'])
        if self.input_parameters.get('fail') == 'skip':
            raise action_base.ActionSkipped(
                '%s is gone' % self.input_parameters['name'])

    def execute(self):
        self.fence()
        self.journal.append(('execute', self.input_parameters['name']))
        if self.input_parameters.get('fail') == 'execute':
            raise action_base.ActionError('refused')

    def revert(self):
        self.fence()
        self.journal.append(('revert', self.input_parameters['name']))


class ContainedRecorder(Recorder):
    """A recorder whose failure is its own (as an evacuation's)."""
    name = 'contained_recorder'
    failure_is_contained = True


ACTION_CLASSES = {'recorder': Recorder,
                  'contained_recorder': ContainedRecorder}


@pytest.fixture
def journal():
    Recorder.journal = []
    return Recorder.journal


@pytest.fixture
def rollback(config):
    config.config(group='watcher_applier',
                  rollback_when_actionplan_failed=True)


def _running_plan(db, *steps, state='ONGOING'):
    """A plan run by HOST whose actions (a chain) are recorders named by
    ``steps`` (name, or (name, fail))."""
    return _plan_of(db, [('recorder', {'name': step} if isinstance(
        step, str) else {'name': step[0], 'fail': step[1]})
        for step in steps], state)


def _plan_of(db, kinds, state='ONGOING'):
    """A plan run by HOST whose actions (a chain) are ``kinds``."""
    plan, actions = factories.action_plan(db, factories.audit(db),
                                          state=state, kinds=kinds)
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == plan['id']).values(hostname=HOST))
    return plan_runs.get(_context(), plan['uuid']), actions


def _context():
    from watcher_ha.common import context
    return context.admin_context()


def _actions(db, plan):
    with db.connect() as conn:
        return [tuple(row) for row in conn.execute(sa.select(
            models.Action.state, models.Action.status_message).where(
                models.Action.action_plan_id == plan['id']).order_by(
                    models.Action.id))]


def _plan_row(db, plan):
    with db.connect() as conn:
        return conn.execute(sa.select(models.ActionPlan).where(
            models.ActionPlan.id == plan['id'])).one()


def _execute(plan, stopping=None):
    return workflow.PlanRun(plan, HOST, ACTION_CLASSES,
                            stopping or threading.Event()).execute()


# Item 3: rollback_when_actionplan_failed.

def test_rollback_reverts_only_what_succeeded_latest_first(
        db, journal, rollback):
    plan, _ = _running_plan(db, 'a', 'b', ('c', 'pre'), 'd')
    state, message = _execute(plan)
    assert state == 'FAILED'
    assert journal == [('execute', 'a'), ('execute', 'b'),
                       ('revert', 'b'), ('revert', 'a')]
    assert message.endswith('; rolled back: %s, %s' % tuple(
        reversed([uuid for uuid in _uuids(db, plan)[:2]])))
    assert _actions(db, plan) == [
        ('SUCCEEDED', 'reverted after the plan failed'),
        ('SUCCEEDED', 'reverted after the plan failed'),
        ('FAILED', 'c is not where the plan says'),
        ('PENDING', None)]


def _uuids(db, plan):
    with db.connect() as conn:
        return conn.execute(sa.select(models.Action.uuid).where(
            models.Action.action_plan_id == plan['id']).order_by(
                models.Action.id)).scalars().all()


def test_the_failed_action_itself_is_never_reverted(db, journal, rollback):
    """A migrate whose pre-condition refused ('server is on n9, not on
    n1') used to be reverted: a live migration of the server to n1."""
    plan, _ = _running_plan(db, ('only', 'pre'))
    state, message = _execute(plan)
    assert state == 'FAILED' and message.endswith('; nothing to roll back')
    assert journal == []


def test_an_action_done_by_an_earlier_run_is_reverted_too(db, journal,
                                                          rollback):
    plan, actions = _running_plan(db, 'before', 'now', ('last', 'execute'))
    with db.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.id == actions[0]['id']).values(
                state='SUCCEEDED'))
    assert _execute(plan)[0] == 'FAILED'
    assert journal == [('execute', 'now'), ('execute', 'last'),
                       ('revert', 'now'), ('revert', 'before')]


def test_no_rollback_on_cancel_or_on_stop(db, journal, rollback):
    plan, _ = _running_plan(db, 'a', 'b', state='CANCELLING')
    assert _execute(plan) == ('CANCELLED', None)
    stopping = threading.Event()
    stopping.set()
    plan, _ = _running_plan(db, 'a', 'b')
    with pytest.raises(workflow.Interrupted):
        _execute(plan, stopping)
    assert journal == []


# Item 7: a cancel that lands as the plan finishes.

def test_a_cancel_landing_as_the_plan_finishes_ends_it_cancelled(
        db, journal):
    plan, _ = _running_plan(db, 'a')
    assert _execute(plan) == ('SUCCEEDED', None)
    # The operator's cancel comes between the outcome and its record.
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == plan['id']).values(state='CANCELLING'))
    plans = manager.ActionPlans(HOST, threading.Event())
    plans._record_end(_context(), plan, 'SUCCEEDED', None)
    row = _plan_row(db, plan)
    assert (row.state, row.status_message) == (
        'CANCELLED', plan_runs.CANCELLED_AT_THE_END)
    with db.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            models.PlanHold)).scalar() == 0


def test_a_cancelling_plan_nothing_works_on_is_ended_by_the_self_check(
        db, journal):
    plan, _ = _running_plan(db, 'a', state='CANCELLING')
    applier = manager.ApplierManager(HOST)
    applier.plans.actions = ACTION_CLASSES
    applier.owner.start(None)
    try:
        applier.owner.sweep()
        _wait(lambda: _plan_row(db, plan).state == 'CANCELLED')
    finally:
        applier.owner.stop(2)


def _wait(check, timeout=10):
    import time
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, 'not reached'
        time.sleep(0.05)


# Item 1: the fence.

def test_an_action_whose_plan_was_adopted_calls_nothing(db, journal):
    """Frozen before its call to the cloud while another applier adopted
    the plan: when it resumes, its fence stops the call, the action stays
    ONGOING for the adopter, and the run ends without ending the plan."""
    plan, actions = _running_plan(db, 'a')
    frozen, adopted = threading.Event(), threading.Event()

    class Freezing(Recorder):
        def pre_condition(self):
            frozen.set()
            adopted.wait(10)

    outcome = []

    def run():
        try:
            outcome.append(workflow.PlanRun(
                plan, HOST, {'recorder': Freezing},
                threading.Event()).execute())
        except workflow.Interrupted as err:
            outcome.append(err)
    thread = threading.Thread(target=run)
    thread.start()
    assert frozen.wait(10)
    assert plan_runs.adopt(_context(), plan['uuid'], HOST, 'applier-2')
    adopted.set()
    thread.join(10)
    [interrupted] = outcome
    assert isinstance(interrupted, workflow.Interrupted)
    assert 'was taken over' in str(interrupted)
    assert journal == []
    assert _actions(db, plan) == [('ONGOING', None)]
    assert _plan_row(db, plan).hostname == 'applier-2'


def test_an_adoption_fences_the_old_run_even_if_the_plan_comes_back(db):
    """A -> B -> A: the adoption moved the action's version on, so A's old
    run stays fenced although A runs the plan again."""
    plan, actions = _running_plan(db, 'a')
    token = plan_runs.move_action(_context(), plan, HOST, actions[0],
                                  'PENDING', 'ONGOING')
    fence = fencing.Fence(_context(), plan, HOST, actions[0], 'ONGOING',
                          token, lambda: None)
    fence()
    assert plan_runs.adopt(_context(), plan['uuid'], HOST, 'applier-2')
    assert plan_runs.adopt(_context(), plan['uuid'], 'applier-2', HOST)
    with pytest.raises(fencing.Fenced):
        fence()
    assert plan_runs.last_fence_pass(_context(), plan) is not None


def test_a_halted_run_or_a_database_error_fences_too(db, monkeypatch):
    plan, actions = _running_plan(db, 'a')
    token = plan_runs.move_action(_context(), plan, HOST, actions[0],
                                  'PENDING', 'ONGOING')
    with pytest.raises(fencing.Fenced, match='stopping'):
        fencing.Fence(_context(), plan, HOST, actions[0], 'ONGOING', token,
                      lambda: 'the applier is stopping')()

    def broken(*args):
        from oslo_db import exception as db_exc
        raise db_exc.DBConnectionError('gone')
    monkeypatch.setattr(plan_runs, 'pass_fence', broken)
    with pytest.raises(fencing.Fenced, match='could not check'):
        fencing.Fence(_context(), plan, HOST, actions[0], 'ONGOING', token,
                      lambda: None)()


def test_every_nova_request_that_may_change_something_passes_the_fence():
    calls = []

    class Answer:
        status_code = 200

    class Session:
        def request(self, url, method, **kwargs):
            calls.append((method, url))
            return Answer

    def fence():
        calls.append('fence')
        if len(calls) > 3:
            raise fencing.Fenced('taken over')
    checked = clients.check_writes(Session(), fence)
    assert checked.request('/servers/x', 'GET') is Answer
    assert checked.request('/servers/x/action', 'POST') is Answer
    with pytest.raises(fencing.Fenced):
        checked.request('/os-services/1', 'PUT')
    assert calls == [('GET', '/servers/x'), 'fence',
                     ('POST', '/servers/x/action'), 'fence']
    # keystoneauth's own token request is not the cloud's business.
    calls.clear()
    assert checked.request('/v3/auth/tokens', 'POST',
                           authenticated=False) is Answer
    assert calls == [('POST', '/v3/auth/tokens')]


def test_a_plan_whose_action_failed_is_resumed_to_its_failure(db, journal):
    """The run that failed an action could not record the plan's end (its
    applier died, or the database failed that write): whoever runs the
    plan next ends it FAILED and runs nothing more, where it used to run
    the failed action's children and end SUCCEEDED."""
    plan, _ = _running_plan(db, 'a', ('b', 'pre'), 'c')
    assert _execute(plan)[0] == 'FAILED'
    journal.clear()
    state, message = _execute(plan)
    assert state == 'FAILED'
    assert 'b is not where the plan says' in message
    assert journal == []
    assert [state for state, _ in _actions(db, plan)] == [
        'SUCCEEDED', 'FAILED', 'PENDING']


def test_a_resumed_rollback_reverts_only_what_it_had_not(db, journal,
                                                         rollback):
    plan, actions = _running_plan(db, 'a', 'b', ('c', 'pre'))
    assert _execute(plan)[0] == 'FAILED'
    assert journal[-2:] == [('revert', 'b'), ('revert', 'a')]
    # As if the run died after reverting b only.
    with db.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.id == actions[0]['id']).values(
                status_message=None))
    journal.clear()
    state, message = _execute(plan)
    assert state == 'FAILED'
    assert journal == [('revert', 'a')]


def test_a_cancel_coming_in_before_an_action_starts_stops_it(db, journal):
    """Between the run's look at the plan (ONGOING) and the action's
    start, an operator cancels: the start, in the transaction that checks
    the plan, refuses, and the plan ends CANCELLED with nothing run."""
    plan, actions = _running_plan(db, 'a')
    run = workflow.PlanRun(plan, HOST, ACTION_CLASSES, threading.Event())
    looked = run.plan_state

    def cancel_after_looking():
        state = looked()
        with db.begin() as conn:
            conn.execute(sa.update(models.ActionPlan).where(
                models.ActionPlan.id == plan['id']).values(
                    state='CANCELLING'))
        return state
    run.plan_state = cancel_after_looking
    assert run.execute()[0] == 'CANCELLED'
    assert journal == []
    assert _actions(db, plan) == [('PENDING', None)]


def test_a_contained_failure_lets_the_rest_of_the_plan_run(db, journal):
    """One server Nova will not evacuate: those after it in its lane and
    the plan's last step still run; the plan ends FAILED, naming it."""
    kinds = [('contained_recorder', {'name': 'a'}),
             ('contained_recorder', {'name': 'b', 'fail': 'execute'}),
             ('contained_recorder', {'name': 'c'}),
             ('recorder', {'name': 'settle'})]
    plan, actions = _plan_of(db, kinds)
    state, message = _execute(plan)
    assert state == 'FAILED' and actions[1]['uuid'] in message
    assert [name for _, name in journal] == ['a', 'b', 'c', 'settle']
    assert [s for s, _ in _actions(db, plan)] == [
        'SUCCEEDED', 'FAILED', 'SUCCEEDED', 'SUCCEEDED']
    # Uncontained, the same failure stops the chain there.
    journal.clear()
    plan, _ = _running_plan(db, 'a', ('b', 'execute'), 'c')
    assert _execute(plan)[0] == 'FAILED'
    assert [name for _, name in journal] == ['a', 'b']


def test_a_plan_resumed_after_a_contained_failure_runs_the_rest(db, journal):
    kinds = [('contained_recorder', {'name': 'a', 'fail': 'execute'}),
             ('contained_recorder', {'name': 'b'})]
    plan, actions = _plan_of(db, kinds)
    with db.begin() as conn:
        # An earlier run recorded the failure, then its applier died.
        conn.execute(sa.update(models.Action).where(
            models.Action.uuid == actions[0]['uuid']).values(
                state='FAILED', status_message='refused'))
    state, message = _execute(plan)
    assert (state, journal) == ('FAILED', [('execute', 'b')])
    assert 'refused' in message


def test_an_action_with_nothing_left_to_do_is_skipped_and_the_plan_goes_on(
        db, journal, rollback, notifications):
    """Its pre-condition says so (ActionSkipped): SKIPPED with the reason,
    nothing executed, the actions after it run, the plan SUCCEEDED and
    nothing is rolled back; an update says so."""
    plan, actions = _running_plan(db, 'a', ('b', 'skip'), 'c')
    assert _execute(plan) == ('SUCCEEDED', None)
    assert journal == [('execute', 'a'), ('execute', 'c')]
    assert _actions(db, plan) == [('SUCCEEDED', None),
                                  ('SKIPPED', 'b is gone'),
                                  ('SUCCEEDED', None)]
    updates = [m['payload']['watcher_object.data']
               for _c, m, _p, _r in notifications
               if m['event_type'] == 'action.update'
               and m['payload']['watcher_object.data']['uuid']
               == actions[1]['uuid']]
    assert [u['state_update']['watcher_object.data']['state']
            for u in updates] == ['ONGOING', 'SKIPPED']
