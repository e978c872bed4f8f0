"""The audit -> action plan -> execution pipeline, with a real decision
engine and applier running in the test process on the in-process bus."""

import threading
import time

import pytest
import sqlalchemy as sa

from tests import factories
from tests.functional.fixtures import wait_for
from watcher_ha.applier import manager as applier_manager
from watcher_ha.applier import rpcapi as applier_rpcapi
from watcher_ha.db import models
from watcher_ha.decision_engine import manager as engine_manager
from watcher_ha.decision_engine import rpcapi as engine_rpcapi
from watcher_ha.service import daemon

HOST = 'test-host'



@pytest.fixture
def intervals(config):
    for group in ('watcher_decision_engine', 'watcher_applier'):
        config.config(group=group, sweep_interval=1, pending_grace=0)
    config.config(group='watcher_decision_engine',
                  continuous_audit_check_interval=0.2)


class Daemons:

    def __init__(self):
        self.running = []

    def engine(self, host=HOST):
        return self._start(daemon.Daemon(
            engine_manager.BINARY, engine_rpcapi.TOPIC,
            engine_manager.DecisionEngineManager(host), host=host))

    def applier(self, host=HOST):
        return self._start(daemon.Daemon(
            applier_manager.BINARY, applier_rpcapi.TOPIC,
            applier_manager.ApplierManager(host), host=host))

    def _start(self, service):
        service.start()
        self.running.append(service)
        return service

    def stop_all(self):
        for service in self.running:
            service.stop()


@pytest.fixture
def daemons(api, intervals):
    started = Daemons()
    yield started
    started.stop_all()


@pytest.fixture
def both(daemons):
    return daemons.engine(), daemons.applier()


def audit_state(api, ident, *states):
    row = api.get('/v1/audits/' + ident, version='1.7').json
    return row if row['state'] in states else None


def plans_of(api, audit_uuid):
    return api.get('/v1/action_plans/detail?audit_uuid=%s' % audit_uuid,
                   version='1.7').json['action_plans']


def plan_state(api, uuid, *states):
    row = api.get('/v1/action_plans/' + uuid, version='1.7').json
    return row if row['state'] in states else None


def actions_of(api, plan_uuid):
    return api.get('/v1/actions/detail?action_plan_uuid=' + plan_uuid,
                   version='1.7').json['actions']


def test_oneshot_audit_to_executed_plan(api, both):
    audit = api.post('/v1/audits', body={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'ONESHOT',
        'parameters': {'para1': 1.0, 'para2': 'demo'}}).json
    done = wait_for(lambda: audit_state(api, audit['uuid'], 'SUCCEEDED'),
                    what='audit SUCCEEDED')
    assert done['hostname'] == HOST
    [plan] = plans_of(api, audit['uuid'])
    assert plan['state'] == 'RECOMMENDED'
    assert plan['strategy_name'] == 'dummy'
    actions = actions_of(api, plan['uuid'])
    assert [(a['action_type'], a['input_parameters']) for a in actions] == [
        ('nop', {'message': 'hello World'}), ('nop', {'message': 'demo'}),
        ('sleep', {'duration': 1.0})]
    assert actions[1]['parents'] == [actions[0]['uuid']]
    assert actions[2]['parents'] == [actions[1]['uuid']]

    assert api.post('/v1/action_plans/%s/start' % plan['uuid'],
                    body={}).status == 200
    finished = wait_for(lambda: plan_state(api, plan['uuid'], 'SUCCEEDED',
                                           'FAILED'), what='plan done')
    assert finished['state'] == 'SUCCEEDED'
    assert finished['hostname'] == HOST
    assert {a['state'] for a in actions_of(api, plan['uuid'])} == {
        'SUCCEEDED'}


def test_audit_without_strategy_uses_the_goals_first(api, both):
    audit = api.post('/v1/audits', body={'goal': 'dummy',
                                         'audit_type': 'ONESHOT'}).json
    wait_for(lambda: audit_state(api, audit['uuid'], 'SUCCEEDED'))
    [plan] = plans_of(api, audit['uuid'])
    assert plan['strategy_name'] == 'dummy'


def test_continuous_rounds_replace_unstarted_plans(api, both,
                                                  notifications):
    audit = api.post('/v1/audits', version='1.7', body={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'CONTINUOUS',
        'interval': '1', 'name': 'every-second'}).json
    plans = wait_for(lambda: len(plans_of(api, audit['uuid'])) >= 3
                     and plans_of(api, audit['uuid']), timeout=15,
                     what='three rounds')
    api.patch('/v1/audits/every-second', body=[
        {'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}])
    plans = plans_of(api, audit['uuid'])
    states = [p['state'] for p in plans]
    assert states[-1] == 'RECOMMENDED'
    assert set(states[:-1]) == {'CANCELLED'}
    for cancelled in plans[:-1]:
        assert {a['state'] for a in actions_of(api, cancelled['uuid'])} == {
            'CANCELLED'}
    # Announced (after each round's commit, so waited for): each replaced
    # plan, and each of its actions, cancelled.
    expected = {('action_plan.update', cancelled['uuid'], 'CANCELLED')
                for cancelled in plans[:-1]} | {
        ('action.update', action['uuid'], 'CANCELLED')
        for cancelled in plans[:-1]
        for action in actions_of(api, cancelled['uuid'])}

    def updates():
        return {(message['event_type'],
                 message['payload']['watcher_object.data']['uuid'],
                 message['payload']['watcher_object.data']['state'])
                for _, message, _, _ in list(notifications)
                if message['event_type'].endswith('.update')}
    wait_for(lambda: expected <= updates(), what='cancel notifications')
    row = api.get('/v1/audits/every-second', version='1.7').json
    assert row['hostname'] == HOST and row['next_run_time']


def test_event_audit_runs_once_per_webhook(api, both):
    audit = api.post('/v1/audits', body={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'EVENT'}).json
    time.sleep(1.5)
    # Nothing before its first event (the sweep leaves EVENT audits alone
    # only once they ran; a new one is run as soon as it is PENDING).
    for count in (1, 2):
        assert api.post('/v1/webhooks/' + audit['uuid'],
                        body={'alarm': count}).status == 202
        wait_for(lambda: len(plans_of(api, audit['uuid'])) == count
                 and audit_state(api, audit['uuid'], 'SUCCEEDED'),
                 what='plan %d' % count)
    time.sleep(1.5)
    assert len(plans_of(api, audit['uuid'])) == 2


def test_auto_trigger_executes_the_plan(api, both):
    audit = api.post('/v1/audits', body={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'ONESHOT',
        'auto_trigger': True, 'parameters': {'para1': 1.0}}).json
    plan = wait_for(lambda: plans_of(api, audit['uuid']))[0]
    wait_for(lambda: plan_state(api, plan['uuid'], 'SUCCEEDED'),
             what='auto-triggered plan SUCCEEDED')


def test_unplannable_solution_fails_the_audit(api, daemons, config):
    config.config(weights={'nop': 60}, group='watcher_planners.weight')
    daemons.engine()
    audit = api.post('/v1/audits', body={
        'goal': 'dummy', 'strategy': 'dummy',
        'audit_type': 'ONESHOT'}).json
    failed = wait_for(lambda: audit_state(api, audit['uuid'],
                                          'FAILED'))
    assert 'No weight is configured for action type sleep' in \
        failed['status_message']
    assert plans_of(api, audit['uuid']) == []


def test_lost_trigger_is_swept(api, db, daemons):
    # Written as the API writes it, but no message is ever sent.
    row = factories.audit(db, state='PENDING')
    daemons.engine()
    wait_for(lambda: audit_state(api, row['uuid'], 'SUCCEEDED'),
             what='swept audit SUCCEEDED')
    assert len(plans_of(api, row['uuid'])) == 1


class CountingSleep:
    """Wraps the sleep plugin and counts executions, per action."""

    def __init__(self, real):
        self.real = real
        self.runs = {}
        self.lock = threading.Lock()

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __call__(self, parameters, context=None, fence=None):
        counter = self

        class Counted(self.real):
            def execute(self):
                with counter.lock:
                    key = parameters['resource_id']
                    counter.runs[key] = counter.runs.get(key, 0) + 1
                return super().execute()
        return Counted(parameters, context, fence)


def test_duplicate_launches_run_no_action_twice(api, db, daemons):
    """Launches of one plan sent many times, at once, to two appliers:
    only the compare-and-swap claim in the database keeps them apart."""
    appliers = [daemons.applier(host='applier-1'),
                daemons.applier(host='applier-2')]
    counting = CountingSleep(appliers[0].manager.actions['sleep'])
    for applier in appliers:
        applier.manager.actions['sleep'] = counting
    plan, actions = factories.action_plan(db, factories.audit(db),
                                          actions=0)
    with db.begin() as conn:
        for index in range(4):
            conn.execute(sa.insert(models.Action).values(
                uuid='00000000-0000-4000-8000-00000000000%d' % index,
                action_plan_id=plan['id'], action_type='sleep',
                input_parameters={'duration': 0.2,
                                  'resource_id': 'a%d' % index},
                state='PENDING', parents=[], created_at=models.utcnow()))
    assert api.post('/v1/action_plans/%s/start' % plan['uuid'],
                    body={}).status == 200
    launchers = [threading.Thread(target=applier.manager.endpoints()[0]
                                  .launch_action_plan,
                                  args=(None, plan['uuid']))
                 for _ in range(5) for applier in appliers]
    for thread in launchers:
        thread.start()
    for _ in range(5):
        applier_rpcapi.ApplierAPI().launch_action_plan(
            __import__('watcher_ha.common.context', fromlist=['x'])
            .admin_context(), plan['uuid'])
    for thread in launchers:
        thread.join()
    wait_for(lambda: plan_state(api, plan['uuid'], 'SUCCEEDED'))
    time.sleep(0.5)
    assert counting.runs == {'a0': 1, 'a1': 1, 'a2': 1, 'a3': 1}


def long_plan(db, first_sleep):
    """A started plan: a sleep, then a nop waiting for it."""
    plan, _ = factories.action_plan(db, factories.audit(db), actions=0)
    with db.begin() as conn:
        first = '00000000-0000-4000-8000-0000000000a1'
        conn.execute(sa.insert(models.Action), [
            dict(uuid=first, action_plan_id=plan['id'], action_type='sleep',
                 input_parameters={'duration': first_sleep},
                 state='PENDING', parents=[], created_at=models.utcnow()),
            dict(uuid='00000000-0000-4000-8000-0000000000a2',
                 action_plan_id=plan['id'], action_type='nop',
                 input_parameters={'message': 'after'}, state='PENDING',
                 parents=[first], created_at=models.utcnow())])
    return plan


def test_cancel_stops_between_actions(api, db, daemons, notifications):
    daemons.applier()
    plan = long_plan(db, 1.5)
    api.post('/v1/action_plans/%s/start' % plan['uuid'], body={})
    wait_for(lambda: [a for a in actions_of(api, plan['uuid'])
                      if a['state'] == 'ONGOING'])
    resp = api.patch('/v1/action_plans/' + plan['uuid'], body=[
        {'op': 'replace', 'path': '/state', 'value': 'CANCELLING'}])
    assert resp.status == 200, resp
    wait_for(lambda: plan_state(api, plan['uuid'], 'CANCELLED'))
    assert [a['state'] for a in actions_of(api, plan['uuid'])] == [
        'SUCCEEDED', 'CANCELLED']
    def sent():
        return [(message['event_type'],
                 message['payload']['watcher_object.data']['uuid'])
                for _, message, _, _ in list(notifications)]
    # Sent after the commit that the state above shows: wait for the last.
    wait_for(lambda: ('action_plan.cancel.end', plan['uuid']) in sent())
    assert [event for event, uuid in sent() if uuid == plan['uuid']][-3:] \
        == ['action_plan.cancel.start', 'action_plan.update',
            'action_plan.cancel.end']
    # The action that never ran is announced CANCELLED.
    assert ('action.update', '00000000-0000-4000-8000-0000000000a2') \
        in sent()


def test_failed_action_fails_the_plan(api, db, daemons):
    daemons.applier()
    plan, actions = factories.action_plan(db, factories.audit(db))
    with db.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.uuid == actions[0]['uuid']).values(
                action_type='teleport'))
    api.post('/v1/action_plans/%s/start' % plan['uuid'], body={})
    failed = wait_for(lambda: plan_state(api, plan['uuid'], 'FAILED'))
    assert 'teleport is not installed' in failed['status_message']
    assert [a['state'] for a in actions_of(api, plan['uuid'])] == [
        'FAILED', 'CANCELLED']


def test_stopping_applier_hands_its_plan_over(api, db, daemons):
    first = daemons.applier(host='applier-1')
    plan = long_plan(db, 30)
    api.post('/v1/action_plans/%s/start' % plan['uuid'], body={})
    wait_for(lambda: [a for a in actions_of(api, plan['uuid'])
                      if a['state'] == 'ONGOING'])
    started = time.monotonic()
    first.stop()
    assert time.monotonic() - started < 10
    handed = plan_state(api, plan['uuid'], 'PENDING')
    assert handed and handed['hostname'] is None
    # The interrupted action stays ONGOING for the next applier to check
    # (its recover()) before anything runs again.
    assert [a['state'] for a in actions_of(api, plan['uuid'])] == [
        'ONGOING', 'PENDING']
    # Another applier resumes it (a shorter wait, for the test's sake).
    with db.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.action_type == 'sleep').values(
                input_parameters={'duration': 0.1}))
    daemons.applier(host='applier-2')
    done = wait_for(lambda: plan_state(api, plan['uuid'], 'SUCCEEDED'),
                    what='resumed plan SUCCEEDED')
    assert done['hostname'] == 'applier-2'


def test_stopping_engine_hands_its_continuous_audit_over(api, daemons):
    first = daemons.engine(host='engine-1')
    audit = api.post('/v1/audits', body={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'CONTINUOUS',
        'interval': '3600'}).json
    wait_for(lambda: plans_of(api, audit['uuid']))
    next_run = api.get('/v1/audits/' + audit['uuid']).json['next_run_time']
    first.stop()
    handed = audit_state(api, audit['uuid'], 'PENDING')
    assert handed and handed['hostname'] is None
    daemons.engine(host='engine-2')
    taken = wait_for(lambda: audit_state(api, audit['uuid'], 'ONGOING'))
    assert taken['hostname'] == 'engine-2'
    # The round schedule is kept: no extra round on takeover.
    assert taken['next_run_time'] == next_run
    time.sleep(1)
    assert len(plans_of(api, audit['uuid'])) == 1
