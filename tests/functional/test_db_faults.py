"""A database connection lost at each write of an audit's and an action
plan's life, with real daemons on RabbitMQ and MariaDB or PostgreSQL: the
daemons reach the database through a proxy (sql_proxy.py) that cuts their
connection at the chosen statement, either before the server runs it or
once the server committed it (the writer cannot tell which). Within 30 s
every row reaches its final state: nothing waits for its owner to
restart, whose self-check looks at what it holds and no job works on.
"""

import time

import pytest
import requests
import sqlalchemy as sa

from tests import factories
from tests import servers
from tests.functional import daemons
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


@pytest.fixture
def rabbit():
    url, delete = servers.create_rabbit_vhost()
    yield url
    delete()


def _plan_state(engine, plan):
    with engine.connect() as conn:
        state = conn.execute(sa.select(models.ActionPlan.state).where(
            models.ActionPlan.id == plan['id'])).scalar()
        actions = set(conn.execute(sa.select(models.Action.state).where(
            models.Action.action_plan_id == plan['id'])).scalars())
        claims = conn.execute(sa.select(sa.func.count()).select_from(
            models.ActionPlanClaim).where(
                models.ActionPlanClaim.action_plan_id == plan['id'])
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
        tmp_path, database, rabbit):
    url, engine = database
    with sql_proxy.SqlProxy(url) as proxy, daemons.cluster(
            tmp_path, proxy.url, rabbit) as cluster:
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
