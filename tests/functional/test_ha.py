"""Active-active: three decision engines and three appliers as separate
processes on one real RabbitMQ, one real database and one real Redis (the
tooz backend), with engines and appliers killed (SIGKILL) and paused
(SIGSTOP) under load."""

import collections
import contextlib
import signal
import threading
import time

import pytest
import requests
import sqlalchemy as sa

from tests import factories
from tests import servers
from tests.functional import daemons
from tests.functional.test_daemons import Notifications
from tests.functional.test_daemons import wait_for
from watcher_ha.common.states import AuditState
from watcher_ha.db import models

ENGINES = ['engine-a', 'engine-b', 'engine-c']
APPLIERS = ['applier-a', 'applier-b', 'applier-c']
INTERVAL = 2
# A member is gone this long after its last heartbeat ([coordination]
# member_timeout); the issue allows 15 s from the kill to the take-over.
TAKEOVER_LIMIT = 15
# [watcher_decision_engine] max_audit_workers: rounds one engine may have
# in flight.
MAX_AUDIT_WORKERS = 4


@pytest.fixture(scope='module')
def rabbit():
    url, delete = servers.create_rabbit_vhost()
    yield url
    delete()


@contextlib.contextmanager
def _database(kind):
    url, drop = servers.create_database(kind)
    engine = sa.create_engine(url)
    try:
        yield url, engine
    finally:
        engine.dispose()
        drop()


@pytest.fixture(params=['mysql', 'postgresql'])
def database(request):
    with _database(request.param) as found:
        yield found


@pytest.fixture
def mariadb():
    """The longer scenarios run on MariaDB only, to keep the suite's time
    in bounds: their database work is that of the scenarios that run on
    both."""
    with _database('mysql') as found:
        yield found


@pytest.fixture
def ha_cluster(tmp_path, database, rabbit):
    yield from _ha_cluster(tmp_path, database, rabbit)


@pytest.fixture
def ha_cluster_mariadb(tmp_path, mariadb, rabbit):
    yield from _ha_cluster(tmp_path, mariadb, rabbit)


def _ha_cluster(tmp_path, database, rabbit):
    """An API, with engines and appliers started by each test."""
    url, engine = database
    notes = Notifications(rabbit)

    def start(**extra):
        extra.setdefault('coordination', {}).update(
            backend_url=servers.redis_coordination_url())
        context = daemons.cluster(tmp_path, url, rabbit, **extra)
        running = context.__enter__()
        running.engine = engine
        running.notes = notes
        started.append(context)
        return running

    started = []
    yield start
    for context in started:
        context.__exit__(None, None, None)
    notes.stop()


def create_audit(url, **body):
    body.setdefault('goal', 'dummy')
    body.setdefault('strategy', 'dummy')
    resp = requests.post(url + '/v1/audits', json=body, timeout=10)
    assert resp.status_code == 201, resp.text
    return resp.json()['uuid']


def owners(engine, uuids):
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(
            models.Audit.uuid, models.Audit.hostname).where(
                models.Audit.uuid.in_(uuids))).all())


def plans_by_audit(engine, uuids):
    """{audit uuid: [(plan uuid, created_at)] in creation order}."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(
            models.Audit.uuid, models.ActionPlan.uuid,
            models.ActionPlan.created_at).join(
                models.Audit, models.ActionPlan.audit_id == models.Audit.id)
            .where(models.Audit.uuid.in_(uuids))
            .order_by(models.ActionPlan.id)).all()
    found = collections.defaultdict(list)
    for audit, plan, created in rows:
        found[audit].append((plan, created))
    return found


def created_on_bus(notes):
    """{plan uuid: host that announced its creation}."""
    with notes.lock:
        return {payload['watcher_object.data']['uuid']: publisher.split(
                ':', 1)[1]
                for event, publisher, payload in notes.received
                if event == 'action_plan.create'}


def check_rounds(plans, notes, tolerance=0.3, killed=0):
    """Each round has exactly one plan: two plans of one audit are never
    closer than half an interval (the least between two rounds, see
    scheduling.next_run), while two plans of one round would come
    milliseconds apart; and the bus announced each plan at most once,
    every one of them except, for each of the ``killed`` engines, the
    rounds it had stored but not yet announced when SIGKILL came (at most
    one per audit worker: notifications leave after the commit)."""
    announced = created_on_bus(notes)
    with notes.lock:
        creations = collections.Counter(
            payload['watcher_object.data']['uuid']
            for event, _, payload in notes.received
            if event == 'action_plan.create')
    for audit, found in plans.items():
        for (_, before), (plan, after) in zip(found, found[1:]):
            gap = (after - before).total_seconds()
            assert gap >= INTERVAL / 2 - tolerance, (
                'audit %s: plan %s came %.2f s after the previous one'
                % (audit, plan, gap))
    unannounced = [plan for found in plans.values() for plan, _ in found
                   if plan not in announced]
    assert len(unannounced) <= killed * MAX_AUDIT_WORKERS, unannounced
    assert all(count == 1 for count in creations.values()), creations


def test_continuous_audits_spread_fail_over_and_never_double(ha_cluster):
    cluster = ha_cluster()
    for name in ENGINES:
        cluster.start_engine(name)
    audits = [create_audit(cluster.url, audit_type='CONTINUOUS',
                           interval=str(INTERVAL)) for _ in range(20)]
    # A one-shot audit its engine was running when it died: ONGOING and
    # stamped with the engine that is about to be killed.
    held = wait_for(lambda: all(owners(cluster.engine, audits).values())
                    and owners(cluster.engine, audits), 20,
                    'every audit owned')
    time.sleep(8)
    spread = collections.Counter(owners(cluster.engine, audits).values())
    assert len(spread) == 3, spread
    victim = spread.most_common(1)[0][0]
    orphan = factories.audit(cluster.engine, state=AuditState.ONGOING,
                             hostname=victim)
    lost = [uuid for uuid, host in held.items() if host == victim]
    killed_at = time.monotonic()
    cluster.kill(victim)

    def taken_over():
        now = owners(cluster.engine, audits)
        return all(now[uuid] not in (victim, None) for uuid in lost)
    wait_for(taken_over, TAKEOVER_LIMIT, 'audits of %s taken over' % victim)
    assert time.monotonic() - killed_at < TAKEOVER_LIMIT

    def rounds_after_takeover():
        plans = plans_by_audit(cluster.engine, lost)
        return all(len([p for p in plans[uuid]]) > 0 for uuid in lost)
    wait_for(rounds_after_takeover, 10, 'rounds on the survivors')
    wait_for(lambda: _state(cluster.engine, orphan['uuid'])
             == AuditState.SUCCEEDED, TAKEOVER_LIMIT,
             'one-shot audit of the killed engine re-run')
    assert owners(cluster.engine, [orphan['uuid']])[orphan['uuid']] != victim
    time.sleep(30)
    plans = plans_by_audit(cluster.engine, audits)
    check_rounds(plans, cluster.notes, killed=1)
    for uuid in audits:
        # About one plan per round over the minute; a take-over costs at
        # most the detection time.
        assert len(plans[uuid]) >= 12, (uuid, len(plans[uuid]))
    assert len(plans_by_audit(cluster.engine, [orphan['uuid']])[
        orphan['uuid']]) == 1


def _state(engine, uuid):
    with engine.connect() as conn:
        return conn.execute(sa.select(models.Audit.state).where(
            models.Audit.uuid == uuid)).scalar()


def test_paused_engine_writes_nothing_it_lost(ha_cluster_mariadb):
    cluster = ha_cluster_mariadb()
    for name in ENGINES:
        cluster.start_engine(name)
    audits = [create_audit(cluster.url, audit_type='CONTINUOUS',
                           interval=str(INTERVAL)) for _ in range(9)]
    held = wait_for(lambda: all(owners(cluster.engine, audits).values())
                    and owners(cluster.engine, audits), 20,
                    'every audit owned')
    time.sleep(4)
    victim = collections.Counter(held.values()).most_common(1)[0][0]
    cluster.kill(victim, signal.SIGSTOP)
    paused_at = models.utcnow()
    time.sleep(30)
    taken = {uuid for uuid, host in owners(cluster.engine, audits).items()
             if host != victim}
    cluster.kill(victim, signal.SIGCONT)
    resumed_at = models.utcnow()
    time.sleep(10)
    plans = plans_by_audit(cluster.engine, audits)
    check_rounds(plans, cluster.notes)
    announced = created_on_bus(cluster.notes)
    for uuid in taken:
        for plan, created in plans[uuid]:
            if paused_at < created < resumed_at:
                assert announced[plan] != victim, (uuid, plan)
    # It is a member again and runs its share.
    wait_for(lambda: victim in owners(cluster.engine, audits).values(), 20,
             'the resumed engine owns audits again')


def _plan_with_sleeps(cluster, seconds=4, count=3):
    """A started plan of chained sleep actions."""
    plan, actions = factories.action_plan(cluster.engine,
                                          factories.audit(cluster.engine),
                                          actions=count)
    with cluster.engine.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.action_plan_id == plan['id']).values(
                action_type='sleep', input_parameters={'duration': seconds}))
    resp = requests.post('%s/v1/action_plans/%s/start' % (
        cluster.url, plan['uuid']), timeout=10)
    assert resp.status_code == 200, resp.text
    return plan, actions


def _plan_row(engine, plan_id):
    with engine.connect() as conn:
        plan = conn.execute(sa.select(models.ActionPlan.state,
                                      models.ActionPlan.hostname).where(
            models.ActionPlan.id == plan_id)).one()
        actions = dict(conn.execute(sa.select(
            models.Action.uuid, models.Action.state).where(
                models.Action.action_plan_id == plan_id)).all())
    return plan, actions


def _kill_applier_mid_plan(cluster):
    for name in APPLIERS:
        cluster.start_applier(name)
    plan, actions = _plan_with_sleeps(cluster)
    # The second sleep is running.
    wait_for(lambda: _plan_row(cluster.engine, plan['id'])[1][
        actions[1]['uuid']] == 'ONGOING', 20, 'second action running')
    runner = _plan_row(cluster.engine, plan['id'])[0].hostname
    cluster.kill(runner)
    return plan, actions, runner, time.monotonic()


def test_applier_killed_mid_plan_cancels_it(ha_cluster):
    cluster = ha_cluster()
    plan, actions, runner, killed_at = _kill_applier_mid_plan(cluster)
    wait_for(lambda: _plan_row(cluster.engine, plan['id'])[0].state
             == 'CANCELLED', TAKEOVER_LIMIT, 'plan CANCELLED')
    assert time.monotonic() - killed_at < TAKEOVER_LIMIT
    row, states = _plan_row(cluster.engine, plan['id'])
    assert row.hostname != runner
    assert [states[a['uuid']] for a in actions] == [
        'SUCCEEDED', 'CANCELLED', 'CANCELLED']


def test_applier_killed_mid_plan_resumes_it(ha_cluster_mariadb):
    cluster = ha_cluster_mariadb(watcher_applier={'recovery': 'resume'})
    plan, actions, runner, killed_at = _kill_applier_mid_plan(cluster)
    wait_for(lambda: _plan_row(cluster.engine, plan['id'])[0].state
             == 'SUCCEEDED', TAKEOVER_LIMIT + 10, 'plan SUCCEEDED')
    row, states = _plan_row(cluster.engine, plan['id'])
    assert row.hostname != runner
    assert set(states.values()) == {'SUCCEEDED'}
    for action in actions:
        starts = [e for e, _ in cluster.notes.of(action['uuid'])
                  if e == 'action.execution.start']
        assert starts == ['action.execution.start'], action['uuid']


def test_two_failures_at_once(ha_cluster_mariadb):
    """Two of three engines killed together: the last one takes every
    continuous audit and no round doubles."""
    cluster = ha_cluster_mariadb()
    for name in ENGINES:
        cluster.start_engine(name)
    audits = [create_audit(cluster.url, audit_type='CONTINUOUS',
                           interval=str(INTERVAL)) for _ in range(6)]
    wait_for(lambda: all(owners(cluster.engine, audits).values()), 20,
             'every audit owned')
    threads = [threading.Thread(target=cluster.kill, args=(name,))
               for name in ENGINES[:2]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wait_for(lambda: set(owners(cluster.engine, audits).values())
             == {ENGINES[2]}, TAKEOVER_LIMIT, 'the survivor owns all')
    time.sleep(6)
    check_rounds(plans_by_audit(cluster.engine, audits), cluster.notes,
                 killed=2)
