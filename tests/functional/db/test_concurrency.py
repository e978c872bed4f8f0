"""Concurrent writers on one row: the conditional UPDATE lets exactly one
win and gives every loser a clean error, on every supported database."""

import datetime
import threading
import time

import pytest
import sqlalchemy as sa

from tests import factories
from tests.helpers import tables
from tests.helpers.racing import race
from tests.helpers.racing import RACERS
from watcher_ha.common import context
from watcher_ha.common import exception
from watcher_ha.common import plugins
from watcher_ha.common import state_machines
from watcher_ha.common.states import AuditState
from watcher_ha.db import audits
from watcher_ha.db import installed_plugins
from watcher_ha.db import models
from watcher_ha.db import transitions


def test_one_winner_per_transition(migrated_engine):
    for _ in range(3):
        audit = factories.audit(migrated_engine, state=AuditState.PENDING)
        row = audits.get(context.admin_context(), audit['uuid'])
        outcomes = race(lambda: transitions.transition(
            context.admin_context(), state_machines.AUDIT, models.Audit,
            row, AuditState.CANCELLED, state_machines.USER))
        winners = [o for o in outcomes if o == row['version'] + 1]
        losers = [o for o in outcomes if isinstance(o, exception.Conflict)]
        assert len(winners) == 1, outcomes
        assert len(losers) == RACERS - 1, outcomes
        final = audits.get(context.admin_context(), audit['uuid'])
        assert final['state'] == AuditState.CANCELLED
        assert final['version'] == row['version'] + 1


def test_racing_field_updates_lose_no_write_silently(migrated_engine):
    audit = factories.audit(migrated_engine, state=AuditState.PENDING)
    row = audits.get(context.admin_context(), audit['uuid'])
    names = iter(range(RACERS))
    lock = threading.Lock()

    def rename():
        with lock:
            name = 'renamed-%d' % next(names)
        audits.update(context.admin_context(), row, {'name': name})
        return name

    outcomes = race(rename)
    winners = [o for o in outcomes if isinstance(o, str)]
    assert len(winners) == 1, outcomes
    final = audits.get(context.admin_context(), audit['uuid'])
    assert final['name'] == winners[0]


def test_concurrent_catalog_syncs_leave_one_row_each(migrated_engine):
    # Several rounds: daemons started together on a freshly migrated
    # database (watcher-ha-db-manage upgrade, then every daemon at once)
    # all insert the catalog. On MariaDB the loser of a deadlock lost its
    # savepoint with its transaction and failed its start with "SAVEPOINT
    # does not exist" instead of retrying.
    for _ in range(5):
        with migrated_engine.begin() as conn:
            tables.empty(conn, tables.CATALOG)
        outcomes = race(
            lambda: installed_plugins.sync(context.admin_context()), 4)
        assert all(o is None for o in outcomes), outcomes
    with migrated_engine.connect() as conn:
        names = conn.execute(sa.select(models.Strategy.name)).scalars().all()
    assert sorted(names) == sorted(plugins.load_classes(plugins.STRATEGIES))


def test_parallel_actions_of_one_plan_never_fail_on_locks(migrated_engine):
    """An applier moves the actions of one plan from several threads. On
    SQLite a transaction that read before writing failed at once ('database
    is locked') when another writer came between; each must wait."""
    import sqlalchemy as sa

    from watcher_ha.db import plan_runs
    plan, actions = factories.action_plan(
        migrated_engine, factories.audit(migrated_engine), actions=8)
    with migrated_engine.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).values(
            state='ONGOING', hostname='applier'))
    plan = plan_runs.get(context.admin_context(), plan['uuid'])

    def churn(action):
        for _ in range(10):
            assert plan_runs.move_action(context.admin_context(), plan,
                                         'applier', action, 'PENDING',
                                         'ONGOING')
            assert plan_runs.move_action(context.admin_context(), plan,
                                         'applier', action, 'ONGOING',
                                         'PENDING')

    barrier = threading.Barrier(len(actions))
    errors = []

    def run(action):
        barrier.wait()
        try:
            churn(action)
        except Exception as err:   # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=run, args=(a,)) for a in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_one_plan_per_round_of_a_continuous_audit(migrated_engine):
    """Engines racing to close one round store one plan. Should another
    ever get past the round's compare-and-swap (here: the round reopened
    behind its back), the unique key on (audit, round) refuses its plan:
    a round lost like any other, not an error. One-shot and event plans
    have no round and never collide."""
    from watcher_ha.db import audit_runs
    audit = factories.audit(migrated_engine, state=AuditState.ONGOING,
                            hostname='engine-1', audit_type='CONTINUOUS',
                            interval='60')
    row = audit_runs.get(context.admin_context(), audit['uuid'])
    due = row['created_at'] + datetime.timedelta(seconds=60)

    def close_round():
        return audit_runs.store_plan(
            context.admin_context(), row, 'engine-1', row['strategy_id'],
            [], None, [], finish_audit=False, next_run_time=due)

    outcomes = race(close_round)
    assert len([o for o in outcomes if isinstance(o, audit_runs.Stored)]) \
        == 1, outcomes
    assert all(isinstance(o, (audit_runs.Stored, audit_runs.LostOwnership))
               for o in outcomes), outcomes
    with migrated_engine.begin() as conn:
        conn.execute(sa.update(models.Audit).where(
            models.Audit.id == row['id']).values(next_run_time=None))
    with pytest.raises(audit_runs.LostOwnership):
        close_round()

    def rounds(audit_id):
        with migrated_engine.connect() as conn:
            return conn.execute(sa.select(models.ActionPlan.audit_round)
                                .where(models.ActionPlan.audit_id
                                       == audit_id)).scalars().all()
    assert rounds(row['id']) == [row['created_at']]
    # Rolled back whole: the round is still open.
    assert audit_runs.get(context.admin_context(), audit['uuid'])[
        'next_run_time'] is None

    event = factories.audit(migrated_engine, state=AuditState.ONGOING,
                            hostname='engine-1', audit_type='EVENT')
    for _ in range(2):
        event = audit_runs.get(context.admin_context(), event['uuid'])
        audit_runs.store_plan(context.admin_context(), event, 'engine-1',
                              event['strategy_id'], [], None, [],
                              finish_audit=True)
        with migrated_engine.begin() as conn:
            conn.execute(sa.update(models.Audit).where(
                models.Audit.id == event['id']).values(
                    state=AuditState.ONGOING))
    assert rounds(event['id']) == [None, None]


# SQLite has one writer at a time and a busy timeout of its own.
@pytest.mark.parametrize('empty_engine', ['mysql', 'postgresql'],
                         indirect=True)
def test_a_stuck_lock_holder_stalls_nobody_for_long(migrated_engine):
    """A transaction left open on an audit's row (its engine paused in
    the middle of it) holds its lock: a take-over of that audit gives up
    after LOCK_WAIT_SECONDS (here 1 s) instead of waiting forever
    (PostgreSQL) or 50 s and five retries (InnoDB), and the API answers
    503 saying so instead of hanging."""
    from tests.helpers.in_process import Client
    from watcher_ha.api import app
    from watcher_ha.conf import CONF
    from watcher_ha.db import audit_runs
    from watcher_ha.db import engine as db_engine
    db_engine.limit_lock_waits(migrated_engine, seconds=1)
    migrated_engine.dispose()
    audit = factories.audit(migrated_engine, state=AuditState.ONGOING,
                            hostname='engine-1', audit_type='CONTINUOUS',
                            interval='60')
    with migrated_engine.connect() as stuck:
        holding = stuck.begin()
        stuck.execute(sa.update(models.Audit).where(
            models.Audit.id == audit['id']).values(
                version=models.Audit.version))
        started = time.monotonic()
        with pytest.raises(db_engine.DB_ERRORS) as raised:
            audit_runs.change_owner(context.admin_context(), audit['uuid'],
                                    'engine-1', 'engine-2')
        assert db_engine.lock_wait_timed_out(raised.value)
        # One wait, not five retries of it.
        assert time.monotonic() - started < 4
        resp = Client(app.setup_app(CONF)).patch(
            '/v1/audits/' + audit['uuid'], body=[
            {'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}])
        assert resp.status == 503, resp.body
        assert 'locked by another transaction' in resp.fault
        holding.rollback()
    # Once the holder is gone, the take-over goes through.
    assert audit_runs.change_owner(context.admin_context(), audit['uuid'],
                                   'engine-1', 'engine-2')


@pytest.mark.parametrize('empty_engine', ['mysql', 'postgresql'],
                         indirect=True)
def test_a_new_round_leaves_a_plan_started_meanwhile_alone(migrated_engine):
    """A continuous audit's new round cancels the plans nobody started.
    An operator starts one of them between the round's read of those
    plans and its cancel: the started plan keeps its actions (it used to
    lose them and end SUCCEEDED having run nothing)."""
    from watcher_ha.db import action_plans
    from watcher_ha.db import audit_runs
    audit = factories.audit(migrated_engine, state=AuditState.ONGOING,
                            hostname='engine-1', audit_type='CONTINUOUS',
                            interval='60')
    started, _ = factories.action_plan(migrated_engine, audit)
    stale, _ = factories.action_plan(migrated_engine, audit)
    row = audit_runs.get(context.admin_context(), audit['uuid'])
    read_plans, start_done = threading.Event(), threading.Event()

    def pause_after_reading_the_plans(conn, cursor, statement, *args):
        if (threading.current_thread().name == 'round'
                and statement.lstrip().upper().startswith('SELECT')
                and 'action_plans.audit_id' in statement):
            read_plans.set()
            start_done.wait(10)
    sa.event.listen(migrated_engine, 'after_cursor_execute',
                    pause_after_reading_the_plans)
    outcome = {}

    def new_round():
        outcome['round'] = audit_runs.store_plan(
            context.admin_context(), row, 'engine-1', row['strategy_id'],
            [], None, [], finish_audit=False,
            next_run_time=row['created_at'] + datetime.timedelta(minutes=1))
    thread = threading.Thread(target=new_round, name='round')
    try:
        thread.start()
        assert read_plans.wait(10)
        action_plans.transition(
            context.admin_context(),
            action_plans.get_plan(context.admin_context(), started['uuid']),
            'PENDING')
        start_done.set()
        thread.join(20)
    finally:
        sa.event.remove(migrated_engine, 'after_cursor_execute',
                        pause_after_reading_the_plans)
    assert outcome['round'].cancelled == [stale['uuid']]

    def states(plan):
        with migrated_engine.connect() as conn:
            return (conn.execute(sa.select(models.ActionPlan.state).where(
                models.ActionPlan.id == plan['id'])).scalar(),
                conn.execute(sa.select(models.Action.state).where(
                    models.Action.action_plan_id == plan['id'])
                    .order_by(models.Action.id)).scalars().all())
    assert states(started) == ('PENDING', ['PENDING', 'PENDING'])
    assert states(stale) == ('CANCELLED', ['CANCELLED', 'CANCELLED'])


@pytest.mark.parametrize('empty_engine', ['mysql', 'postgresql'],
                         indirect=True)
def test_a_transaction_left_idle_is_ended_by_the_server(migrated_engine):
    """A daemon paused in the middle of a transaction (between two of its
    statements) would keep its rows locked for as long as the pause: the
    server ends that transaction once it has been idle for
    IDLE_TRANSACTION_SECONDS (here 2 s), the others' writes go through,
    and the paused daemon's next statement fails instead of writing."""
    from watcher_ha.db import audit_runs
    from watcher_ha.db import engine as db_engine
    db_engine.limit_lock_waits(migrated_engine, seconds=1, idle_seconds=2)
    migrated_engine.dispose()
    audit = factories.audit(migrated_engine, state=AuditState.ONGOING,
                            hostname='engine-1', audit_type='CONTINUOUS',
                            interval='60')
    with migrated_engine.connect() as paused:
        paused.begin()
        paused.execute(sa.update(models.Audit).where(
            models.Audit.id == audit['id']).values(
                version=models.Audit.version))
        time.sleep(3)
        assert audit_runs.change_owner(context.admin_context(),
                                       audit['uuid'], 'engine-1',
                                       'engine-2')
        with pytest.raises(db_engine.DB_ERRORS):
            paused.execute(sa.update(models.Audit).where(
                models.Audit.id == audit['id']).values(
                    hostname='engine-1'))
    assert audit_runs.get(context.admin_context(),
                          audit['uuid'])['hostname'] == 'engine-2'


@pytest.mark.parametrize('empty_engine', ['mysql', 'postgresql'],
                         indirect=True)
def test_a_transaction_sits_idle_no_longer_than_a_member_is_silent(
        migrated_engine, config):
    """The server ends a transaction idle for [coordination]
    member_timeout: the rows a paused daemon locked are free by the time
    its work is adopted (from 1.1 times member_timeout on), rather than
    holding the adoption up until a longer timeout of their own."""
    from watcher_ha.db import engine as db_engine
    config.config(group='coordination', member_timeout=7)
    db_engine.limit_lock_waits(migrated_engine)
    migrated_engine.dispose()
    with migrated_engine.connect() as conn:
        _lock_wait, idle = conn.exec_driver_sql(
            LIMITS[migrated_engine.dialect.name]).one()
    assert str(idle) in ('7', '7s'), idle


# A session's (lock wait, idle-transaction timeout), by dialect.
LIMITS = {'mysql': 'SELECT @@innodb_lock_wait_timeout, '
                   '@@idle_transaction_timeout',
          'postgresql': "SELECT current_setting('lock_timeout'), "
                        "current_setting("
                        "'idle_in_transaction_session_timeout')"}
# A daemon's first transaction, on the connection its engine opened
# first: its LIMITS (the query, argv[2]) printed.
FIRST_CONNECTION = '''
import sys
import sqlalchemy as sa
from watcher_ha.common import context
from watcher_ha.conf import CONF
from watcher_ha.db import engine
CONF([], project='watcher-ha')
CONF.set_override('connection', sys.argv[1], group='database')
engine.configure(CONF)
with engine.writer.using(context.admin_context()) as session:
    print(*session.execute(sa.text(sys.argv[2])).one())
'''


@pytest.mark.parametrize('database', ['mysql', 'postgresql'], indirect=True)
def test_a_daemons_first_connection_has_the_lock_limits(database):
    """oslo.db tests a new engine's first connection before the product's
    set-up hooks run: that connection must not stay in the pool without
    the lock-wait and idle-transaction limits."""
    import subprocess
    import sys
    url, engine = database
    shown = subprocess.run([sys.executable, '-c', FIRST_CONNECTION, url,
                            LIMITS[engine.dialect.name]],
                           capture_output=True, text=True, check=True,
                           timeout=120).stdout.split()
    assert shown in (['10', '10'], ['10s', '10s']), shown
