"""The servers under the daemons restart during the scenario: Redis (the
coordination backend, which keeps nothing), RabbitMQ and the database. The
daemons recover by themselves and the HA invariants still hold."""

import contextlib
import datetime
import time

import pytest
import requests
import sqlalchemy as sa
from tooz import coordination

from tests.functional import private_servers
from tests.functional import services
from tests.functional.daemons import Notifications
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import ENGINES
from tests.functional.ha_checks import INTERVAL
from tests.functional.ha_checks import check_rounds
from tests.functional.ha_checks import create_audit
from tests.functional.ha_checks import owners
from tests.functional.ha_checks import snapshot
from watcher_ha.db import models

APPLIERS = ['applier-a', 'applier-b', 'applier-c']


@pytest.fixture
def stack(tmp_path):
    """A Redis, a PostgreSQL and a RabbitMQ node of the test's own."""
    redis = private_servers.Redis(tmp_path)
    postgres = private_servers.Postgres(tmp_path)
    rabbit = private_servers.Rabbit(tmp_path / 'rabbit')
    try:
        redis.start()
        postgres.start()
        rabbit.start()
        yield redis, postgres, rabbit
    finally:
        redis.stop()
        with contextlib.suppress(Exception):
            rabbit.stop()
        with contextlib.suppress(Exception):
            postgres.stop()
        postgres.remove()


def latest_plans(engine, audits):
    return {uuid: found[-1].created_at for uuid, found in
            snapshot(engine, audits)[1].items() if found}


def all_progress_after(engine, audits, moment):
    """Every audit made a plan after ``moment`` and has a live owner."""
    latest = latest_plans(engine, audits)
    return (len(latest) == len(audits)
            and all(created > moment for created in latest.values())
            and all(owners(engine, audits).values()))


def test_daemons_recover_from_server_restarts(tmp_path, stack):
    redis, postgres, rabbit = stack
    engine = sa.create_engine(postgres.url, pool_pre_ping=True)
    notes = Notifications(rabbit.url)
    try:
        with services.cluster(
                tmp_path, postgres.url, rabbit.url,
                coordination={'backend_url': redis.url}) as cluster:
            cluster.engine, cluster.notes = engine, notes
            cluster.start_daemons(engines=ENGINES, appliers=APPLIERS)
            audits = [create_audit(cluster.url, audit_type='CONTINUOUS',
                                   interval=str(INTERVAL))
                      for _ in range(6)]
            wait_for(lambda: all_progress_after(
                engine, audits, models.utcnow().replace(year=2000)), 30,
                'every audit running')

            bus_outages = []
            for restart in (_restart_redis(redis),
                            _restart_rabbit(rabbit),
                            _restart_database(postgres, engine)):
                began = models.utcnow()
                moment = restart()
                wait_for(lambda: all_progress_after(engine, audits, moment),
                         60, 'every audit running after the restart')
                if restart.bus:
                    # What the broker's queues held when it stopped, and
                    # what was sent until this test's own listener was
                    # back, may be lost (its queue is not durable).
                    bus_outages.append((
                        began - datetime.timedelta(seconds=INTERVAL),
                        notes.reconnected_after(moment)))
                # Redis kept nothing: every daemon joined its group again.
                wait_for(lambda: members(redis.url) == {
                    'watcher-ha-decision-engine': set(ENGINES),
                    'watcher-ha-applier': set(APPLIERS)}, 30,
                    'every daemon a member again')

            # Every audit is run by a live engine.
            assert set(owners(engine, audits).values()) <= set(ENGINES)
            check_rounds(cluster, audits, bus_outages=bus_outages)
            # The pipeline still works end to end.
            oneshot = create_audit(cluster.url, audit_type='ONESHOT')
            wait_for(lambda: _state(engine, models.Audit, oneshot)
                     == 'SUCCEEDED', 20, 'a new audit SUCCEEDED')
            [plan] = [p.uuid for p in snapshot(engine, [oneshot])[1][oneshot]]
            resp = requests.post('%s/v1/action_plans/%s/start' % (
                cluster.url, plan), timeout=10)
            assert resp.status_code == 200, resp.text
            wait_for(lambda: _state(engine, models.ActionPlan, plan)
                     == 'SUCCEEDED', 30, 'its plan SUCCEEDED')
    finally:
        notes.stop()
        engine.dispose()


def members(url):
    coordinator = coordination.get_coordinator(url, b'test-reader')
    coordinator.start()
    try:
        found = {}
        for group in ('watcher-ha-decision-engine', 'watcher-ha-applier'):
            try:
                found[group] = {m.decode() for m in coordinator.get_members(
                    group.encode()).get()}
            except coordination.GroupNotCreated:
                found[group] = set()
        return found
    finally:
        coordinator.stop()


def _state(engine, model, uuid):
    with engine.connect() as conn:
        return conn.execute(sa.select(model.state).where(
            model.uuid == uuid)).scalar()


def _restart_redis(redis):
    def restart():
        redis.stop()
        time.sleep(3)
        redis.start()
        return models.utcnow()
    restart.bus = False
    return restart


def _restart_rabbit(rabbit):
    def restart():
        rabbit.restart_app()
        return models.utcnow()
    restart.bus = True
    return restart


def _restart_database(postgres, engine):
    def restart():
        postgres.stop()
        time.sleep(3)
        postgres.start()
        return models.utcnow()
    restart.bus = False
    return restart
