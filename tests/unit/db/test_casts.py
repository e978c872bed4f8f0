"""Casts to the daemons go out after the commit, once per state change,
and never for a change that did not happen."""

import threading
import time

import pytest

from tests.helpers import in_process
from tests import factories
from watcher_ha.db import models


class Recorder:
    """An RPC endpoint on the in-process bus that notes what it receives
    and what the database said at that moment."""

    def __init__(self, engine):
        self.engine = engine
        self.calls = []
        self.received = threading.Event()

    def trigger_audit(self, context, audit_uuid):
        with self.engine.connect() as conn:
            state = conn.execute(models.Audit.__table__.select().where(
                models.Audit.uuid == audit_uuid)).first()
        self.calls.append(('trigger_audit', audit_uuid,
                           state.state if state else None))
        self.received.set()

    def launch_action_plan(self, context, action_plan_uuid):
        with self.engine.connect() as conn:
            plan = conn.execute(models.ActionPlan.__table__.select().where(
                models.ActionPlan.uuid == action_plan_uuid)).first()
        self.calls.append(('launch_action_plan', action_plan_uuid,
                           plan.state if plan else None))
        self.received.set()


@pytest.fixture
def recorder(db):
    with in_process.daemon_endpoints(Recorder(db)) as recorder:
        yield recorder


def calls_for(recorder, uuids, count, timeout=5.0):
    """The calls about ``uuids`` once ``count`` arrived (or the timeout).

    The in-process bus keeps casts no test consumed, so the recorder may
    also receive other tests' messages: only ours are looked at.
    """
    for _ in range(int(timeout / 0.05)):
        mine = [c for c in recorder.calls if c[1] in uuids]
        if len(mine) >= count:
            break
        recorder.received.wait(0.05)
        recorder.received.clear()
    return [c for c in recorder.calls if c[1] in uuids]


def test_oneshot_audit_is_triggered_after_commit(api, recorder):
    resp = api.post('/v1/audits', body={'goal': 'dummy',
                                        'audit_type': 'ONESHOT'})
    assert calls_for(recorder, {resp.json['uuid']}, 1) == [
        ('trigger_audit', resp.json['uuid'], 'PENDING')]


def test_continuous_audit_is_triggered_after_commit(api, recorder):
    resp = api.post('/v1/audits', body={'goal': 'dummy',
                                        'audit_type': 'CONTINUOUS',
                                        'interval': '60'})
    assert calls_for(recorder, {resp.json['uuid']}, 1) == [
        ('trigger_audit', resp.json['uuid'], 'PENDING')]


def test_no_cast_for_refused_or_event_audits(api, recorder):
    assert api.post('/v1/audits', body={
        'goal': 'dummy', 'audit_type': 'ONESHOT', 'interval': '10'}
    ).status == 400
    event = api.post('/v1/audits', body={'goal': 'dummy',
                                         'audit_type': 'EVENT'}).json
    assert calls_for(recorder, {event['uuid']}, 1, timeout=1) == []


def test_a_plan_started_twice_is_launched_once(api, recorder, db):
    plan, _ = factories.action_plan(db, factories.audit(db))
    path = '/v1/action_plans/%s/start' % plan['uuid']
    assert api.post(path, body={}).status == 200
    assert api.post(path, body={}).status == 400
    assert calls_for(recorder, {plan['uuid']}, 2, timeout=1) == [
        ('launch_action_plan', plan['uuid'], 'PENDING')]


def test_webhook_triggers_the_event_audit(api, recorder):
    audit = api.post('/v1/audits', body={'goal': 'dummy',
                                         'audit_type': 'EVENT'}).json
    assert api.post('/v1/webhooks/' + audit['uuid'], body={}).status == 202
    assert calls_for(recorder, {audit['uuid']}, 1) == [
        ('trigger_audit', audit['uuid'], 'PENDING')]


def test_an_auto_triggered_plan_is_launched_before_its_actions_are_told(
        api, db, recorder, notifications, monkeypatch):
    """A plan stored started is launched right after its commit, not
    behind the notifications of its actions: one read and one send each,
    seconds on a busy bus for the hundred evacuations of a host's
    recovery, during which no applier would take the plan (the sweep
    would, pending_grace later)."""
    from watcher_ha.decision_engine import auditor
    from watcher_ha.decision_engine import loaded_plugins
    from watcher_ha.decision_engine.planner import loader
    from watcher_ha.decision_engine.planner import weight
    from watcher_ha.notifications import notifier
    sent = []
    send = notifier._send

    def slow_send(event_type, *args, **kwargs):
        time.sleep(0.5)         # a bus that takes its time
        send(event_type, *args, **kwargs)
        sent.append(event_type)
    monkeypatch.setattr(notifier, '_send', slow_send)
    # How many of its actions had been told of when the launch came.
    told_at_launch = []
    launch = recorder.launch_action_plan

    def noting(context, action_plan_uuid):
        told_at_launch.append(sent.count('action.create'))
        launch(context, action_plan_uuid)
    monkeypatch.setattr(recorder, 'launch_action_plan', noting)
    audit = api.post('/v1/audits', body={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'ONESHOT',
        'auto_trigger': True}).json
    engine = auditor.Auditor(
        'engine-1', loaded_plugins.LoadedPlugins(), loader.Planners(
            {'weight': weight.WeightPlanner({'nop': 1, 'sleep': 1}, {})}))
    engine.run(audit['uuid'])
    [plan] = api.get('/v1/action_plans?audit_uuid=' + audit['uuid']).json[
        'action_plans']
    [launched] = calls_for(recorder, {plan['uuid']}, 1)
    assert launched == ('launch_action_plan', plan['uuid'], 'PENDING')
    assert sent.count('action.create') == 3
    # The launch came before the last of them was out.
    assert told_at_launch[0] < 3
