"""The fences of one running plan's actions, on the databases with row
locks: they pass side by side (a plan's evacuations start at once, not
one commit after another), and each still keeps an adoption out until
it has committed, so that a pass either happened before the plan
changed hands or sees that it did."""

import threading

import pytest

from tests import factories
from watcher_ha.common import context
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import plan_runs
from watcher_ha.db import transitions

WITH_ROW_LOCKS = pytest.mark.parametrize(
    'empty_engine', ['mysql', 'postgresql'], indirect=True)
# Longer than a pass takes on a loaded machine, and than the product's
# lock waits (engine.LOCK_WAIT_SECONDS): a pass kept waiting by the
# other ends in that wait's error, or is still waiting.
PASS_SECONDS = 15


class PausedFence:
    """A fence of the plan run by ``host`` for ``action``, paused inside
    its transaction just after the plan row was locked (at its write of
    the action) until ``resume()``."""

    def __init__(self, monkeypatch, plan, host, action):
        self.locked, self.resumed = threading.Event(), threading.Event()
        self.passed = None
        write = transitions.write

        def paused_write(*args, **kwargs):
            if threading.current_thread() is self.thread:
                self.locked.set()
                self.resumed.wait(60)
            return write(*args, **kwargs)

        monkeypatch.setattr(transitions, 'write', paused_write)
        self.thread = threading.Thread(target=self._pass, args=(
            plan, host, action), daemon=True)
        self.thread.start()
        assert self.locked.wait(PASS_SECONDS), 'the fence never locked'

    def _pass(self, plan, host, action):
        self.passed = plan_runs.pass_fence(
            context.admin_context(), plan, host, action, ActionState.ONGOING,
            action['version'])

    def resume(self):
        self.resumed.set()
        self.thread.join(PASS_SECONDS)
        assert not self.thread.is_alive(), 'the paused fence never ended'
        return self.passed


def in_thread(func):
    """Run ``func`` in a thread: (the thread, a dict its result, or the
    error it raised, goes in)."""
    outcome = {}

    def run():
        try:
            outcome['result'] = func()
        except Exception as err:  # noqa: BLE001 - shown by the asserts
            outcome['result'] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def running_plan(engine):
    audit = factories.audit(engine)
    plan, actions = factories.action_plan(
        engine, audit, state=ActionPlanState.ONGOING, hostname='applier-a',
        actions=2, action_states=[ActionState.ONGOING] * 2)
    return plan, [dict(a, version=1) for a in actions]


@WITH_ROW_LOCKS
def test_two_fences_of_one_plan_pass_side_by_side(migrated_engine,
                                                  monkeypatch):
    plan, (first, second) = running_plan(migrated_engine)
    paused = PausedFence(monkeypatch, plan, 'applier-a', first)
    try:
        thread, outcome = in_thread(lambda: plan_runs.pass_fence(
            context.admin_context(), plan, 'applier-a', second,
            ActionState.ONGOING, second['version']))
        thread.join(PASS_SECONDS)
        assert not thread.is_alive(), (
            'the second fence waited for the first to commit')
        assert outcome['result'] is True
    finally:
        assert paused.resume() is True


@WITH_ROW_LOCKS
def test_an_adoption_waits_for_a_fence_and_fails_the_next(migrated_engine,
                                                          monkeypatch):
    plan, (first, _) = running_plan(migrated_engine)
    paused = PausedFence(monkeypatch, plan, 'applier-a', first)
    thread, outcome = in_thread(lambda: plan_runs.adopt(
        context.admin_context(), plan['uuid'], 'applier-a', 'applier-b'))
    thread.join(2)
    assert thread.is_alive(), 'the adoption did not wait for the fence'
    # The pass committed before the plan changed hands: it stands.
    assert paused.resume() is True
    thread.join(PASS_SECONDS)
    assert outcome['result'] is True
    # The fence of the applier the plan was taken from now fails.
    assert plan_runs.pass_fence(
        context.admin_context(), plan, 'applier-a', first,
        ActionState.ONGOING, first['version']) is False
