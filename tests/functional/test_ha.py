"""Active-active: three decision engines and three appliers as separate
processes on one real RabbitMQ, one real database and one real Redis (the
tooz backend), with engines and appliers killed (SIGKILL) and paused
(SIGSTOP) under load.

Each action plan records, internally, the round of its continuous audit
(``audit_round``: the due time of the round) and the engine that computed
it (``planned_by``); the tests read both, and the notifications on the
bus, to count rounds and plans exactly instead of guessing from timing.
"""

import datetime
import signal
import threading
import time

import pytest
import requests
import sqlalchemy as sa

from tests import factories
from tests.functional import daemons
from tests.functional import fixtures
from tests.functional import services
from tests.functional import slow_strategy
from tests.functional.cloud import nova
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import POSTGRESQL_ONLY
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import APPLIERS
from tests.functional.ha_checks import audit_row
from tests.functional.ha_checks import check_rounds
from tests.functional.ha_checks import create_audit
from tests.functional.ha_checks import ENGINES
from tests.functional.ha_checks import events
from tests.functional.ha_checks import INTERVAL
from tests.functional.ha_checks import owners
from tests.functional.ha_checks import snapshot
from tests.functional.ha_checks import spread_audits
from tests.functional.ha_checks import STRATEGY_STARTED
from tests.functional.ha_checks import strategy_started
from tests.functional.cloud import auth_sections
from tests.functional.ha_checks import action_starts
from tests.functional.ha_checks import plan_row
from tests.functional.ha_checks import TAKEOVER
from tests.functional.ha_checks import adopter
from tests.functional.ha_checks import check_recovered
from watcher_ha.applier.actions import nova_base
from watcher_ha.common.states import AuditState
from watcher_ha.db import models
from watcher_ha.service import coordination
from watcher_ha.simulator import scenario

# A SIGKILLed member leaves the group no sooner than this: its heartbeat
# key outlives its last beat (every 5 s) by member_timeout (10 s).
TAKEOVER_MIN = 5
# The scenario: continuous audits running this long.
RUN_FOR = 60
# A resumed engine owns its share again: it finds itself out of its
# group and joins again (a membership read), is presumed nobody's for
# member_timeout after joining, then each engine's next look at the ring
# hands the audits over, with a write each.
SHARE_BACK = fixtures.Bound(
    daemons.MEMBER_TIMEOUT, 2 * daemons.MEMBERSHIP_REFRESH, work=3)


@MARIADB_ONLY
def test_continuous_audits_spread_fail_over_and_never_double(ha_cluster):
    cluster = ha_cluster()
    cluster.start_daemons(engines=ENGINES)
    begun = time.monotonic()
    audits, held = spread_audits(cluster, 20, interval=str(INTERVAL))
    # A one-shot audit whose strategy thinks for 10 s: the engine that
    # takes it is killed while running it.
    oneshot = create_audit(cluster.url, audit_type='ONESHOT',
                           strategy=slow_strategy.NAME,
                           parameters={'seconds': 10})
    victim = wait_for(lambda: strategy_started(cluster.notes, oneshot),
                      STRATEGY_STARTED, 'the one-shot audit running')
    cluster.kill(victim)
    killed_at, killed_clock = models.utcnow(), time.monotonic()
    assert audit_row(cluster.engine, oneshot) == (AuditState.ONGOING,
                                                  victim)
    # A dead engine changes nothing: what it held when it died.
    lost = [uuid for uuid, host in owners(cluster.engine, audits).items()
            if host == victim]
    assert lost, held

    def running_on_survivors():
        now = owners(cluster.engine, audits)
        plans = snapshot(cluster.engine, lost)[1]
        return all(now[uuid] not in (victim, None) and any(
            p.created_at > killed_at and p.planned_by not in (victim, None)
            for p in plans[uuid]) for uuid in lost)
    wait_for(running_on_survivors, TAKEOVER,
             'audits of %s running on the survivors' % victim)
    assert time.monotonic() - killed_clock < TAKEOVER.seconds()

    # Re-run from scratch on a survivor: 5 to 11 s to notice, 10 s to think.
    wait_for(lambda: audit_row(cluster.engine, oneshot).state
             == AuditState.SUCCEEDED, TAKEOVER + 20,
             'one-shot audit of the killed engine re-run')
    rerun_by = audit_row(cluster.engine, oneshot).hostname
    assert rerun_by not in (victim, None)
    [plan] = snapshot(cluster.engine, [oneshot])[1][oneshot]
    assert (plan.planned_by, plan.audit_round) == (rerun_by, None)
    assert [host for event, host, _ in events(cluster.notes, oneshot)
            if event == 'audit.strategy.start'] == [victim, rerun_by]

    time.sleep(max(0, RUN_FOR - (time.monotonic() - begun)))
    check_rounds(cluster, audits, killed=[victim])


def test_paused_engine_writes_nothing_it_lost(ha_cluster):
    """SIGSTOP for 30 s of an engine running a one-shot audit and rounds:
    the others take all it held; once resumed it finishes what it was
    computing, and stores none of it."""
    cluster = ha_cluster()
    cluster.start_daemons(engines=ENGINES)
    # Rounds that think half a second: some are running when it stops.
    audits, _ = spread_audits(cluster, 9, interval=str(INTERVAL),
                              strategy=slow_strategy.NAME,
                              parameters={'seconds': 0.5})
    # It thinks for 32 s: it resumes 2 s before the end of that, and
    # tries to store its plan while the survivor that re-runs the audit
    # (from 5 to 11 s into the pause, for 32 s) still runs it. Only the
    # check that it owns the audit stops that write.
    oneshot = create_audit(cluster.url, audit_type='ONESHOT',
                           strategy=slow_strategy.NAME,
                           parameters={'seconds': 32})
    victim = wait_for(lambda: strategy_started(cluster.notes, oneshot),
                      STRATEGY_STARTED, 'the one-shot audit running')
    cluster.kill(victim, signal.SIGSTOP)
    paused_at, paused_clock = models.utcnow(), time.monotonic()
    lost = [uuid for uuid, host in owners(cluster.engine, audits).items()
            if host == victim]
    assert lost

    def moved():
        now = owners(cluster.engine, audits)
        rerun = audit_row(cluster.engine, oneshot)
        return (all(now[uuid] not in (victim, None) for uuid in lost)
                and rerun.hostname not in (victim, None))
    wait_for(moved, TAKEOVER, 'what %s held taken over' % victim)
    time.sleep(max(0, 30 - (time.monotonic() - paused_clock)))
    cluster.kill(victim, signal.SIGCONT)
    resumed_clock = time.monotonic()

    wait_for(lambda: audit_row(cluster.engine, oneshot).state
             == AuditState.SUCCEEDED, 30, 'the one-shot audit re-run')
    time.sleep(max(0, 10 - (time.monotonic() - resumed_clock)))
    rows, plans = snapshot(cluster.engine, audits + [oneshot])
    [plan] = plans[oneshot]
    assert plan.planned_by == rows[oneshot].hostname != victim, plan
    # Not for want of trying: the resumed engine finished computing the
    # one-shot audit's plan, tried to store it, and dropped it.
    log = (cluster.tmp_path / (victim + '.log')).read_text()
    assert 'Audit %s is no longer run by this engine' % oneshot in log
    for uuid in lost:
        taken_over = [p for p in plans[uuid] if p.created_at > paused_at
                      and p.planned_by != victim]
        assert taken_over, uuid
        # Its plans after the pause are from rounds after the take-over,
        # once the audit was handed back to it: the round it was running
        # when paused was due before the take-over's first.
        for p in plans[uuid]:
            if p.planned_by == victim and p.created_at > paused_at:
                assert p.audit_round > taken_over[0].audit_round, (uuid, p)
    check_rounds(cluster, audits)
    # It is a member again and runs its share: the continuous audits the
    # ring over the three engines gives it. What it held before the pause
    # it had claimed (it was paused before its first look at the ring),
    # so the ring may give it none of these: about one run in thirty. An
    # audit the ring gives it is then created.
    ring, members = coordination.Ring(), frozenset(ENGINES)
    share = [uuid for uuid in audits if ring.owner(members, uuid) == victim]
    for _ in range(30):
        if share:
            break
        uuid = create_audit(cluster.url, audit_type='CONTINUOUS',
                            interval=str(INTERVAL),
                            strategy=slow_strategy.NAME,
                            parameters={'seconds': 0.5})
        if ring.owner(members, uuid) == victim:
            share.append(uuid)
    assert share, 'the ring gave %s none of 30 new audits' % victim
    wait_for(lambda: set(owners(cluster.engine, share).values())
             == {victim}, SHARE_BACK,
             'the resumed engine owns its share again')


def _plan_with_sleeps(cluster, durations=(4, 4, 4)):
    """A started plan of chained sleep actions."""
    plan, actions = factories.action_plan(
        cluster.engine, factories.audit(cluster.engine),
        kinds=[('sleep', {'duration': seconds}) for seconds in durations])
    resp = requests.post('%s/v1/action_plans/%s/start' % (
        cluster.url, plan['uuid']), timeout=10)
    assert resp.status_code == 200, resp.text
    return plan, actions


def _updated_at(engine, action):
    with engine.connect() as conn:
        return conn.execute(sa.select(models.Action.updated_at).where(
            models.Action.id == action['id'])).scalar_one()


def _kill_applier_mid_plan(cluster, durations=(4, 4, 4), appliers=APPLIERS):
    """Kill the applier running the second action of a plan of sleeps,
    once that action's start is on the bus; returns (plan, actions, the
    killed applier, when it was killed, when the second action began)."""
    cluster.start_daemons(appliers=appliers)
    plan, actions = _plan_with_sleeps(cluster, durations)
    runner = wait_for(
        lambda: (action_starts(cluster, actions[1]) or [None])[0],
        20, 'second action running')
    assert plan_row(cluster.engine, plan['id'])[1] == {
        actions[0]['uuid']: 'SUCCEEDED', actions[1]['uuid']: 'ONGOING',
        actions[2]['uuid']: 'PENDING'}
    began = _updated_at(cluster.engine, actions[1])
    cluster.kill(runner)
    return plan, actions, runner, models.utcnow(), began


@POSTGRESQL_ONLY
def test_applier_killed_mid_plan_cancels_it(ha_cluster):
    cluster = ha_cluster()
    plan, actions, runner, _, _ = _kill_applier_mid_plan(cluster)
    killed_clock = time.monotonic()
    wait_for(lambda: plan_row(cluster.engine, plan['id'])[0].state
             == 'CANCELLED', TAKEOVER, 'plan CANCELLED')
    assert time.monotonic() - killed_clock < TAKEOVER.seconds()
    row, states = plan_row(cluster.engine, plan['id'])
    assert row.hostname != runner
    assert [states[a['uuid']] for a in actions] == [
        'SUCCEEDED', 'CANCELLED', 'CANCELLED']


@MARIADB_ONLY
def test_applier_killed_mid_plan_resumes_it(ha_cluster):
    cluster = ha_cluster(watcher_applier={'recovery': 'resume'})
    # The second sleep outlasts the take-over: the survivor has some of
    # it left to wait.
    long_sleep = 15
    plan, actions, runner, killed_at, began = _kill_applier_mid_plan(
        cluster, durations=(2, long_sleep, 2))
    wait_for(lambda: plan_row(cluster.engine, plan['id'])[0].state
             == 'SUCCEEDED', long_sleep + 2 + TAKEOVER,
             'plan SUCCEEDED')
    row, states = plan_row(cluster.engine, plan['id'])
    survivor = row.hostname
    assert survivor not in (runner, None)
    assert set(states.values()) == {'SUCCEEDED'}
    # "Executed twice" means begun twice. An applier begins an action by
    # moving it PENDING -> ONGOING (a compare-and-swap) and announcing
    # action.execution.start, before calling the plugin, and begins it in
    # no other way; the kill came only once the killed applier's start of
    # the second action was on the bus, so no start can be missing. The
    # survivor does not begin the interrupted action again: it finds it
    # ONGOING and asks the sleep how much of its interval, begun on the
    # killed applier, is left; it waits only that and marks the action
    # SUCCEEDED with an action.update (recovery.settle_interrupted,
    # Sleep.recover). So exactly: the first two actions begun by the
    # killed applier, the third by the survivor, once each.
    assert [action_starts(cluster, a) for a in actions] == [
        [runner], [runner], [survivor]]
    resumed = [host for event, host, data in events(
        cluster.notes, actions[1]['uuid']) if event == 'action.update'
        and data['state'] == 'SUCCEEDED']
    assert resumed == [survivor]
    # Resumed, not begun again: it ended when the interval begun before
    # the kill ran out, sooner than a new one begun by the survivor could
    # (the survivor cannot adopt the plan within TAKEOVER_MIN s).
    ended = _updated_at(cluster.engine, actions[1])
    assert began + datetime.timedelta(seconds=long_sleep - 0.05) <= ended \
        < killed_at + datetime.timedelta(seconds=TAKEOVER_MIN + long_sleep)


@MARIADB_ONLY
def test_applier_restarted_resolves_its_own_plans(ha_cluster):
    """Killed, then started again under the same host: at start it
    resolves the plans still stamped with it (cancel, the default), with no
    peer to adopt them."""
    cluster = ha_cluster()
    plan, actions, runner, _, _ = _kill_applier_mid_plan(
        cluster, appliers=APPLIERS[:1])
    cluster.start_applier(runner)
    restarted = time.monotonic()
    wait_for(lambda: plan_row(cluster.engine, plan['id'])[0].state
             == 'CANCELLED', TAKEOVER, 'plan CANCELLED')
    assert time.monotonic() - restarted < TAKEOVER.seconds()
    row, states = plan_row(cluster.engine, plan['id'])
    assert row.hostname == runner
    assert [states[a['uuid']] for a in actions] == [
        'SUCCEEDED', 'CANCELLED', 'CANCELLED']
    assert [action_starts(cluster, a) for a in actions] == [
        [runner], [runner], []]


@MARIADB_ONLY
def test_two_failures_at_once(ha_cluster):
    """Two of three engines killed together: the last one takes every
    continuous audit and no round doubles or is skipped."""
    cluster = ha_cluster()
    cluster.start_daemons(engines=ENGINES)
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
             == {ENGINES[2]}, TAKEOVER, 'the survivor owns all')
    time.sleep(6)
    check_rounds(cluster, audits, killed=ENGINES[:2])


@MARIADB_ONLY
def test_applier_killed_mid_migration_resumes_it(ha_cluster,
                                                 tmp_path):
    """recovery = resume with a live migration still running in the
    simulated cloud when its applier is SIGKILLed: the survivor sees the
    migration under way, waits for it, and counts the action done without
    asking Nova for a second one."""
    made = scenario.generate(hosts=2, servers=1, seed=7)
    # 2048 MB at 100 MB/s: the migration lasts 20 s, longer than the
    # take-over.
    made['servers'][0].update(flavor='m1.small', host='compute-0000',
                              state='active')
    made['bandwidth_mb_per_s'] = 100
    with services.simulator(tmp_path / 'sim', made) as sim_url:
        auth = {'auth_type': 'password',
                'auth_url': sim_url + '/identity/v3', 'username': 'admin',
                'password': 'admin', 'project_name': 'admin',
                'user_domain_name': 'Default',
                'project_domain_name': 'Default'}
        cluster = ha_cluster(
            nova=dict(auth), placement=dict(auth),
            watcher_applier={'recovery': 'resume', 'poll_interval': 0.2,
                             'migration_timeout': 60})
        cluster.start_daemons(appliers=APPLIERS[:2])

        def cloud():
            return requests.get(sim_url + '/simulator/state',
                                timeout=10).json()['servers']
        [server] = cloud()
        plan, [action] = factories.action_plan(
            cluster.engine, factories.audit(cluster.engine), kinds=[(
                'migrate', {'resource_id': server, 'migration_type': 'live',
                            'source_node': 'compute-0000',
                            'destination_node': 'compute-0001'})])
        resp = requests.post('%s/v1/action_plans/%s/start' % (
            cluster.url, plan['uuid']), timeout=10)
        assert resp.status_code == 200, resp.text
        runner = wait_for(
            lambda: (action_starts(cluster, action) or [None])[0],
            20, 'the migrate action begun')
        wait_for(lambda: cloud()[server]['task_state'] == 'migrating', 10,
                 'the live migration under way')
        cluster.kill(runner)
        survivor = adopter(cluster, plan, runner)
        # Adopted while the migration runs (20 s): the survivor finds the
        # action ONGOING and the server still moving.
        assert cloud()[server]['task_state'] == 'migrating'
        check_recovered(cluster, plan, action, runner, survivor, 30)
        assert [host for event, host, data in events(
            cluster.notes, action['uuid']) if event == 'action.update'
            and data['state'] == 'SUCCEEDED'] == [survivor]
        assert cloud()[server]['host'] == 'compute-0001'
        migrations = nova(sim_url).migrations.list(
            instance_uuid=server)
        assert [(m.migration_type, m.status, m.dest_compute)
                for m in migrations] == [
                    ('live-migration', 'completed', 'compute-0001')]


def _slow_gets(sim_url, server, seconds):
    """The simulator's next GET of ``server`` waits ``seconds`` first."""
    resp = requests.put(sim_url + '/simulator/faults', timeout=10, json={
        'api_failures': [{'method': 'GET', 'path': '/servers/%s$' % server,
                          'delay': seconds, 'count': 1}]})
    assert resp.status_code in (200, 204), resp.text


def _migrate(server, destination):
    return ('migrate', {'resource_id': server, 'migration_type': 'live',
                        'source_node': 'compute-0000',
                        'destination_node': destination})


def _start(cluster, plan):
    resp = requests.post('%s/v1/action_plans/%s/start' % (
        cluster.url, plan['uuid']), timeout=10)
    assert resp.status_code == 200, resp.text


# How long the frozen applier's GET of its server takes: it is frozen in
# it, and gets the answer only after its plan was adopted.
FROZEN_GET = 20


# Each mode on one database: both databases, in half the time.
@pytest.mark.parametrize('database,recovery', [('mysql', 'resume'),
                                               ('postgresql', 'cancel')],
                         indirect=['database'])
def test_a_frozen_applier_adopted_calls_the_cloud_no_more(ha_cluster,
                                                          tmp_path,
                                                          recovery):
    """An applier SIGSTOPped inside a migrate action, in the GET before
    its call to Nova (the simulator holds the answer back), is presumed
    gone and its plan adopted. SIGCONTed while the server is still on its
    source and idle, it goes on to the live migration: its fence refuses
    it. Each server is migrated exactly once (the simulator's
    os-migrations), and no CANCELLED action has an effect in the cloud."""
    made = scenario.generate(hosts=3, servers=2, seed=7)
    for server in made['servers']:
        server.update(flavor='m1.small', host='compute-0000',
                      state='active')
    with services.simulator(tmp_path / 'sim', made) as sim_url:
        cluster = ha_cluster(
            watcher_applier={'recovery': recovery, 'poll_interval': 0.2,
                             'migration_timeout': 60},
            **auth_sections(sim_url))
        cluster.start_daemons(appliers=APPLIERS[:2])
        client = nova(sim_url)
        first, second = sorted(s.id for s in client.servers.list())
        plan, actions = factories.action_plan(
            cluster.engine, factories.audit(cluster.engine),
            kinds=[_migrate(first, 'compute-0001'),
                   _migrate(second, 'compute-0001')])
        _slow_gets(sim_url, first, FROZEN_GET)
        _start(cluster, plan)
        runner = wait_for(lambda: (action_starts(cluster, actions[0])
                                   or [None])[0], 20, 'the first migrate')
        # In the GET of pre_condition(), before the live migration.
        time.sleep(1)
        cluster.kill(runner, signal.SIGSTOP)
        frozen_clock, frozen_at = time.monotonic(), models.utcnow()
        if recovery == 'resume':
            # The adopter's own look at the server (recover()) answers
            # after the frozen applier's GET does.
            _slow_gets(sim_url, first, FROZEN_GET + 3)
        survivor = adopter(cluster, plan, runner, TAKEOVER + 2)
        if recovery == 'cancel':
            wait_for(lambda: plan_row(cluster.engine, plan['id'])[0].state
                     == 'CANCELLED', 10, 'the plan cancelled')
        # The server is still on its source, and idle (asked of the
        # simulator's own state: a GET of the Compute API would take the
        # adopter's slow answer).
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()['servers'][first]
        assert (state['host'], state['task_state']) == ('compute-0000',
                                                        None)
        cluster.kill(runner, signal.SIGCONT)
        assert time.monotonic() - frozen_clock < FROZEN_GET
        # The resumed applier gets its answer, and has time to act on it.
        time.sleep(FROZEN_GET + 4 - (time.monotonic() - frozen_clock))
        if recovery == 'cancel':
            # Its claims are gone with it: a new plan on the same server
            # starts, and is the only one that moves it.
            again, _ = factories.action_plan(
                cluster.engine, factories.audit(cluster.engine),
                kinds=[_migrate(first, 'compute-0002')])
            _start(cluster, again)
            wait_for(lambda: plan_row(cluster.engine, again['id'])[0].state
                     == 'SUCCEEDED', 30, 'the new plan done')
            expected = {first: ['compute-0002'], second: []}
            assert plan_row(cluster.engine, plan['id'])[1] == {
                a['uuid']: 'CANCELLED' for a in actions}
        else:
            wait_for(lambda: plan_row(cluster.engine, plan['id'])[0].state
                     == 'SUCCEEDED', 60, 'the plan done')
            expected = {first: ['compute-0001'], second: ['compute-0001']}
            assert plan_row(cluster.engine, plan['id'])[0].hostname == \
                survivor
            # Moved by the survivor, once its own look (held back longer)
            # found the server still on its source: not by the resumed
            # applier, the moment its GET answered (it then found the
            # server where it expected, and the action its own).
            [moved] = client.migrations.list(instance_uuid=first)
            assert moved.created_at >= (
                frozen_at + datetime.timedelta(seconds=FROZEN_GET + 2)
            ).strftime('%Y-%m-%dT%H:%M:%SZ')
        time.sleep(1)
        for server, destinations in expected.items():
            migrations = client.migrations.list(instance_uuid=server)
            assert [(m.status, m.dest_compute) for m in migrations] == [
                ('completed', host) for host in destinations], server
            where = nova_base.host_of(client.servers.get(server))
            assert where == (destinations or ['compute-0000'])[-1]
        # Not for want of trying: it went on past its GET, and its fence
        # (or its finding the plan taken while out of its group) stopped
        # it.
        log = (cluster.tmp_path / (runner + '.log')).read_text()
        assert 'Action plan %s stops on %s' % (plan['uuid'], runner) in log
        assert 'was taken over' in log


@MARIADB_ONLY
def test_a_redis_restarted_empty_takes_nothing_over(ha_cluster,
                                                      private_redis):
    """The coordination backend restarts and forgets every member while
    two appliers run plans and two engines compute one-shot audits. Each
    daemon finds its group gone, joins again, and presumes nobody dead for
    member_timeout: every plan ends SUCCEEDED on the applier that ran it,
    no audit is computed twice, nothing is cancelled."""
    cluster = ha_cluster(coordination={'backend_url': private_redis.url})
    cluster.start_daemons(engines=ENGINES[:2], appliers=APPLIERS[:2])
    plans = [_plan_with_sleeps(cluster, durations=(6, 6))
             for _ in range(4)]
    audits = [create_audit(cluster.url, audit_type='ONESHOT',
                           strategy=slow_strategy.NAME,
                           parameters={'seconds': 14})
              for _ in range(4)]
    wait_for(lambda: all(action_starts(cluster, actions[0])
                         for _, actions in plans)
             and all(strategy_started(cluster.notes, audit)
                     for audit in audits), 20, 'all of it running')
    runners = {plan['uuid']: action_starts(cluster, actions[0])[0]
               for plan, actions in plans}
    assert set(runners.values()) == set(APPLIERS[:2]), runners
    private_redis.stop()
    private_redis.start()
    restarted = time.monotonic()
    wait_for(lambda: all(plan_row(cluster.engine, plan['id'])[0].state
                         == 'SUCCEEDED' for plan, _ in plans)
             and all(audit_row(cluster.engine, audit).state
                     == AuditState.SUCCEEDED for audit in audits),
             40, 'every plan and audit done')
    for plan, actions in plans:
        row, states = plan_row(cluster.engine, plan['id'])
        assert row.hostname == runners[plan['uuid']]
        assert set(states.values()) == {'SUCCEEDED'}
        assert [action_starts(cluster, a) for a in actions] == [
            [row.hostname]] * len(actions)
    for audit in audits:
        assert len([event for event, _, _ in events(cluster.notes, audit)
                    if event == 'audit.strategy.start']) == 1, audit
    # Everyone is back in its group.
    wait_for(lambda: requests.get(cluster.url + '/v1/services',
                                  timeout=10).json()['services']
             and all(s['status'] == 'ACTIVE' for s in requests.get(
                 cluster.url + '/v1/services', timeout=10).json()[
                     'services']), 20, 'every service ACTIVE')
    assert time.monotonic() - restarted < 60
