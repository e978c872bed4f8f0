"""A plan's cancel reaching its running actions, in-process on SQLite:
the action that can be stopped is (its cancel asked again until it
says it stopped) and ends CANCELLED, the one that cannot runs to its
end, the actions not begun are cancelled, and the plan ends
CANCELLED."""

import threading

import sqlalchemy as sa

from tests import factories
from watcher_ha.applier.actions import base as action_base
from watcher_ha.applier import workflow
from watcher_ha.db import models
from watcher_ha.db import plan_runs

HOST = 'applier-1'


class Stoppable(action_base.Action):
    """Runs until cancelled; refuses the first cancel (as Nova refuses to
    abort a migration it has not begun)."""
    name = 'stoppable'
    running = None
    cancels = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._stop = threading.Event()

    @classmethod
    def validate(cls, input_parameters):
        pass

    def execute(self):
        Stoppable.running.set()
        if not self._stop.wait(10):
            raise AssertionError('never cancelled')
        raise action_base.ActionError('stopped halfway')

    def cancel(self):
        Stoppable.cancels += 1
        if Stoppable.cancels < 2:
            return False
        self.cancelled = 'stopped for the cancel'
        self._stop.set()
        return True


class Unstoppable(action_base.Action):
    """Takes a moment, whatever happens."""
    name = 'unstoppable'

    @classmethod
    def validate(cls, input_parameters):
        pass

    def execute(self):
        Stoppable.running.wait(5)
        threading.Event().wait(0.5)


ACTION_CLASSES = {'stoppable': Stoppable, 'unstoppable': Unstoppable}


def _context():
    from watcher_ha.common import context
    return context.admin_context()


def _run_cancelled_once(db, plan, action_classes, running):
    """The plan's run, on HOST, with the operator's cancel (the plan
    CANCELLING) coming once ``running`` is set: its outcome."""
    def cancel_once_running():
        running.wait(5)
        with db.begin() as conn:
            conn.execute(sa.update(models.ActionPlan).where(
                models.ActionPlan.id == plan['id']).values(
                    state='CANCELLING'))
    canceller = threading.Thread(target=cancel_once_running)
    canceller.start()
    try:
        return workflow.PlanRun(
            plan_runs.get(_context(), plan['uuid']), HOST, action_classes,
            threading.Event()).execute()
    finally:
        canceller.join()


def test_a_cancel_stops_what_it_can_and_lets_the_rest_finish(db, config):
    config.config(poll_interval=0.1, group='watcher_applier')
    Stoppable.running = threading.Event()
    Stoppable.cancels = 0
    plan, actions = factories.action_plan(
        db, factories.audit(db), state='ONGOING', kinds=[
            ('stoppable', {}), ('unstoppable', {}), ('unstoppable', {})])
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == plan['id']).values(hostname=HOST))
        # The first two side by side, the third after the second.
        conn.execute(sa.update(models.Action).where(
            models.Action.id == actions[1]['id']).values(parents=[]))

    outcome = _run_cancelled_once(db, plan, ACTION_CLASSES,
                                  Stoppable.running)
    assert outcome == ('CANCELLED', None)
    with db.connect() as conn:
        states = [tuple(row) for row in conn.execute(sa.select(
            models.Action.state, models.Action.status_message).where(
                models.Action.action_plan_id == plan['id']).order_by(
                    models.Action.id))]
    # The third is cancelled when the plan's end is recorded.
    assert states == [('CANCELLED', 'stopped for the cancel'),
                      ('SUCCEEDED', None), ('PENDING', None)]
    assert Stoppable.cancels == 2


class StoppedBeforeItsAnswer(action_base.Action):
    """The cloud stops the work as the cancel asks, and execute sees it
    (a migration aborted: the server back on its source) before the
    cloud's answer to the cancel is back."""
    name = 'stopped_before_its_answer'
    running = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._stopped = threading.Event()
        self._seen = threading.Event()

    @classmethod
    def validate(cls, input_parameters):
        pass

    def execute(self):
        StoppedBeforeItsAnswer.running.set()
        if not self._stopped.wait(10):
            raise AssertionError('never cancelled')
        self._seen.set()
        raise action_base.ActionError('the migration failed: the server '
                                      'is still on its source')

    def cancel(self):
        self._stopped.set()
        # The answer comes back after execute has seen the stop.
        self._seen.wait(5)
        threading.Event().wait(0.2)
        self.cancelled = 'aborted with its plan'
        return True


def test_an_action_the_cancel_stops_before_its_answer_ends_cancelled(
        db, config):
    """Seen in test_plan_cancel under load: a live migration aborted, the
    action saw its server back on the source before the abort's answer,
    and ended FAILED, and its plan FAILED, for the operator's cancel."""
    config.config(poll_interval=0.1, group='watcher_applier')
    StoppedBeforeItsAnswer.running = threading.Event()
    plan, actions = factories.action_plan(
        db, factories.audit(db), state='ONGOING',
        kinds=[('stopped_before_its_answer', {})])
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.id == plan['id']).values(hostname=HOST))
    outcome = _run_cancelled_once(
        db, plan, {'stopped_before_its_answer': StoppedBeforeItsAnswer},
        StoppedBeforeItsAnswer.running)
    assert outcome == ('CANCELLED', None)
    with db.connect() as conn:
        assert conn.execute(sa.select(
            models.Action.state, models.Action.status_message).where(
                models.Action.id == actions[0]['id'])).one() == (
            'CANCELLED', 'aborted with its plan')
