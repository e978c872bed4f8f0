"""An audit pipeline whose decision engine dies is finished by another,
and planned once (issue 31's acceptance), as test_ha.py shows it for
one-shot audits: three engines as separate processes on RabbitMQ,
MariaDB and Redis; the engine planning the pipeline's first stage (a
strategy that thinks for 10 s) is SIGKILLed; a survivor adopts the
pipeline within the take-over bound of ha_checks.py and plans it again
from its first stage; the pipeline has one plan, announced once, stored
by the survivor."""

import time

import sqlalchemy as sa

from tests.functional import slow_strategy
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import ENGINES
from tests.functional.ha_checks import events
from tests.functional.ha_checks import STRATEGY_STARTED
from tests.functional.ha_checks import TAKEOVER
from tests.helpers import pipelines
from watcher_ha.db import models

THINKS = 10


def _row(engine, uuid):
    with engine.connect() as conn:
        return conn.execute(sa.select(
            models.AuditPipeline.state, models.AuditPipeline.hostname).where(
                models.AuditPipeline.uuid == uuid)).one()


def _plans(engine, uuid):
    pipeline = models.AuditPipeline
    with engine.connect() as conn:
        return conn.execute(sa.select(
            models.ActionPlan.uuid, models.ActionPlan.planned_by).join(
                pipeline, models.ActionPlan.audit_pipeline_id
                == pipeline.id).where(pipeline.uuid == uuid)).all()


def _starts(notes, uuid):
    return [host for event, host, _ in events(notes, uuid)
            if event == 'audit_pipeline.strategy.start']


@MARIADB_ONLY
def test_a_pipeline_survives_its_engines_sigkill(ha_cluster):
    cluster = ha_cluster()
    cluster.start_daemons(engines=ENGINES)
    pipelines.template(cluster.url, 'slow', 'dummy', slow_strategy.NAME,
                       {'seconds': THINKS})
    pipelines.template(cluster.url, 'quick', 'dummy', 'dummy')
    uuid = pipelines.create(cluster.url, ['slow', 'quick'])
    victim = wait_for(lambda: (_starts(cluster.notes, uuid) or [None])[0],
                      STRATEGY_STARTED, 'the pipeline planning')
    cluster.kill(victim)
    killed = time.monotonic()
    assert tuple(_row(cluster.engine, uuid)) == ('ONGOING', victim)

    survivor = wait_for(
        lambda: (_row(cluster.engine, uuid).hostname
                 not in (victim, None) and _row(cluster.engine,
                                                uuid).hostname),
        TAKEOVER, 'the pipeline adopted by a survivor')
    assert time.monotonic() - killed < TAKEOVER.seconds()
    wait_for(lambda: _row(cluster.engine, uuid).state == 'SUCCEEDED',
             THINKS + 20, 'the pipeline planned by %s' % survivor)
    assert tuple(_row(cluster.engine, uuid)) == ('SUCCEEDED', survivor)
    # Planned again from its first stage on the survivor; the dead
    # engine stored nothing: one plan, by the survivor, announced once.
    assert _starts(cluster.notes, uuid) == [victim, survivor, survivor]
    [(plan, planned_by)] = _plans(cluster.engine, uuid)
    assert planned_by == survivor
    created = wait_for(lambda: [
        host for event, host, data in events(cluster.notes, plan)
        if event == 'action_plan.create'], 15, 'the plan announced')
    assert created == [survivor]
    [(shown, actions)] = pipelines.plans_of(cluster.url, uuid)
    assert shown['uuid'] == plan
    assert [a['action_type'] for a in actions].count('nop') >= 2
