"""A database connection lost at each write of an audit's and an action
plan's life, with real daemons on RabbitMQ and MariaDB or PostgreSQL: the
daemons reach the database through a proxy (sql_proxy.py) that cuts their
connection at the chosen statement, either before the server runs it or
once the server committed it (the writer cannot tell which). Within 30 s
every row reaches its final state: nothing waits for its owner to
restart, whose self-check looks at what it holds and no job works on.
The same at each commit of the take-over of a plan whose applier was
killed: it ends as ``[watcher_applier] recovery`` chose.
"""

import time

import requests
import sqlalchemy as sa

from tests import factories
from tests.functional import services
from tests.functional import sql_proxy
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import create_audit
from watcher_ha.db import models

# The bound, from the cut to the row's final state.
SETTLED_WITHIN = 30

# (what is written, the statement that writes it, whose life: audit/plan)
WRITES = [
    ('audit claimed', r"^UPDATE audits SET state='ONGOING'", 'audit'),
    ('audit plan stored', r"^UPDATE audits SET state='SUCCEEDED'", 'audit'),
    ('plan claimed', r"^UPDATE action_plans SET state='ONGOING'", 'plan'),
    ('action started', r"^UPDATE actions SET state='ONGOING'", 'plan'),
    ('action finished', r"^UPDATE actions SET state='SUCCEEDED'", 'plan'),
    ('plan finished', r"^UPDATE action_plans SET state='SUCCEEDED'",
     'plan'),
]
# Cut before the server runs the statement (the write never happens), or
# once the server committed its transaction (it happened; the writer got
# an error instead of the answer).
CUTS = [('statement', 'before'), ('commit', 'after')]

# The commits of an adopter's take-over of a plan whose applier was
# killed in the middle of an action, with recovery = cancel (the
# default), in the order it sends them: (what is written, the statement
# that writes it).
TAKE_OVER_WRITES = [
    ('plan adopted', r"^UPDATE action_plans SET hostname='applier-"),
    ('interrupted action cancelled',
     r"^UPDATE actions SET state='CANCELLED'"),
    ('plan cancelled', r"^UPDATE action_plans SET state='CANCELLED'"),
]
# The commit not sent (the transaction rolls back), or sent and committed.
COMMIT_CUTS = [('commit', 'before'), ('commit', 'after')]
# [coordination] member_timeout: a killed applier is presumed gone this
# long after its last heartbeat, and its plan adopted.
MEMBER_TIMEOUT = 3


def _plan_state(engine, plan):
    with engine.connect() as conn:
        state = conn.execute(sa.select(models.ActionPlan.state).where(
            models.ActionPlan.id == plan['id'])).scalar()
        actions = set(conn.execute(sa.select(models.Action.state).where(
            models.Action.action_plan_id == plan['id'])).scalars())
        claims = conn.execute(sa.select(sa.func.count()).select_from(
            models.PlanHold).where(
                models.PlanHold.action_plan_id == plan['id'])
        ).scalar()
    return state, actions, claims


def _audit_state(engine, uuid):
    with engine.connect() as conn:
        return conn.execute(sa.select(models.Audit.state).where(
            models.Audit.uuid == uuid)).scalar()


def _started_plan(cluster, engine):
    plan, _ = factories.action_plan(
        engine, factories.audit(engine),
        kinds=[('nop', {'message': 'one', 'resource_id': 'r1'}),
               ('nop', {'message': 'two', 'resource_id': 'r2'})])
    resp = requests.post('%s/v1/action_plans/%s/start' % (
        cluster.url, plan['uuid']), timeout=10)
    assert resp.status_code == 200, resp.text
    return plan


def test_a_connection_lost_at_any_write_leaves_nothing_stuck(
        tmp_path, database, own_rabbit):
    url, engine = database
    with sql_proxy.SqlProxy(url) as proxy, services.cluster(
            tmp_path, proxy.url, own_rabbit) as cluster:
        cluster.start_daemons(engines=['engine-a'], appliers=['applier-a'])
        cuts = 0
        for what, statement, life in WRITES:
            for at, when in CUTS:
                case = '%s, cut %s the %s' % (what, when, at)
                proxy.arm(statement, at=at, when=when)
                if life == 'audit':
                    uuid = create_audit(cluster.url, audit_type='ONESHOT')
                else:
                    plan = _started_plan(cluster, engine)
                cuts += 1
                proxy.wait_fired(cuts, timeout=20)
                cut = time.monotonic()
                if life == 'audit':
                    wait_for(lambda: _audit_state(engine, uuid)
                             == 'SUCCEEDED', SETTLED_WITHIN, case)
                else:
                    wait_for(lambda: _plan_state(engine, plan) == (
                        'SUCCEEDED', {'SUCCEEDED'}, 0), SETTLED_WITHIN,
                        case)
                assert time.monotonic() - cut < SETTLED_WITHIN, case


def _running_action(engine, plan):
    """(its applier, the plan's first action is running), or None."""
    with engine.connect() as conn:
        return conn.execute(sa.select(models.ActionPlan.hostname).where(
            models.ActionPlan.id == plan['id'],
            models.ActionPlan.state == 'ONGOING',
            sa.exists().where(
                models.Action.action_plan_id == plan['id'],
                models.Action.state == 'ONGOING'))).scalar()


def test_a_plan_taken_over_with_a_commit_lost_ends_cancelled(
        tmp_path, database, own_rabbit):
    """Issue 32, item 3: an applier killed in the middle of a plan's
    sleep; its plan is adopted with recovery = cancel, and the adopter's
    connection is cut at one commit of the take-over. The plan ends
    CANCELLED with every action it had not run CANCELLED: none runs after
    the take-over. The self-check used to resume a plan whose cancelling
    commit was lost and run the rest of it to SUCCEEDED."""
    url, engine = database
    with sql_proxy.SqlProxy(url) as proxy, services.cluster(
            tmp_path, proxy.url, own_rabbit, coordination={
                'backend_url': services.redis_coordination_url(),
                'member_timeout': MEMBER_TIMEOUT}) as cluster:
        appliers = ['applier-a', 'applier-b']
        cluster.start_daemons(engines=['engine-a'], appliers=appliers)
        cuts = 0
        ended = {}
        for what, statement in TAKE_OVER_WRITES:
            for at, when in COMMIT_CUTS:
                case = '%s, cut %s the %s' % (what, when, at)
                plan, _ = factories.action_plan(
                    engine, factories.audit(engine),
                    kinds=[('sleep', {'duration': 60}),
                           ('nop', {'message': 'after the sleep'})])
                resp = requests.post('%s/v1/action_plans/%s/start' % (
                    cluster.url, plan['uuid']), timeout=10)
                assert resp.status_code == 200, resp.text
                runner = wait_for(lambda: _running_action(engine, plan),
                                  20, 'the sleep running (%s)' % case)
                proxy.arm(statement, at=at, when=when)
                cluster.kill(runner)
                cuts += 1
                proxy.wait_fired(cuts, timeout=6 * MEMBER_TIMEOUT)
                ended[case] = wait_for(
                    lambda: _ended(_plan_state(engine, plan)),
                    SETTLED_WITHIN, 'the plan ended (%s)' % case)
                # Its next victim: the other one runs the next plan, or
                # this one again.
                cluster.start_applier(runner)
        assert ended == {case: ('CANCELLED', {'CANCELLED'}, 0)
                         for case in ended}


def _ended(state):
    """``state`` (_plan_state) once the plan ended and let its claims
    go."""
    return state if state[0] in ('SUCCEEDED', 'FAILED', 'CANCELLED') \
        and state[2] == 0 else None
