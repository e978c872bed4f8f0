"""Cancelling a plan of live migrations while they run, on the simulator
with appliers as processes: the running migrations are aborted in Nova
(the one queued behind another on its source too), the servers stay on
their sources, the actions not begun are cancelled, and the plan ends
CANCELLED within 10 s; with the applier SIGKILLed as the cancel comes
in, the applier that takes the plan over finishes the cancel."""

import time

import pytest
import requests
import sqlalchemy as sa

from tests.functional import migration_plans
from tests.functional import services
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import TAKEOVER
from watcher_ha.db import models
from watcher_ha.simulator import scenario

# The bound, from the cancel to the plan CANCELLED.
CANCEL_LIMIT = 10
APPLIERS = ['applier-a', 'applier-b']
SOURCES = ['compute-0000', 'compute-0001', 'compute-0002']
DESTINATIONS = ['compute-0003', 'compute-0004', 'compute-0005']


def slow_cloud():
    """Two m1.small servers on each source; at 50 MB/s a live migration
    takes 41 s, one at a time per source (Nova's default)."""
    spec = scenario.generate(hosts=6, servers=0, seed=5)
    spec['servers'] = [{'name': 'vm-%s-%d' % (host[-1], index),
                        'flavor': 'm1.small', 'host': host,
                        'state': 'active'}
                       for host in SOURCES for index in (1, 2)]
    spec['bandwidth_mb_per_s'] = 50
    return spec


@pytest.fixture
def running(tmp_path, database, rabbit):
    """(the simulator's URL, the cluster), the appliers started by the
    test with [nova] pointed at the simulator."""
    url, engine = database
    with services.simulator(tmp_path / 'sim', slow_cloud()) as sim_url:
        auth = {'auth_type': 'password',
                'auth_url': sim_url + '/identity/v3', 'username': 'admin',
                'password': 'admin', 'project_name': 'admin',
                'user_domain_name': 'Default',
                'project_domain_name': 'Default'}
        started = []

        def start(**applier):
            context = services.cluster(
                tmp_path, url, rabbit, nova=dict(auth),
                placement=dict(auth),
                coordination={
                    'backend_url': services.redis_coordination_url()},
                watcher_applier=dict({'poll_interval': 0.2,
                                       'migration_timeout': 120}, **applier))
            cluster = context.__enter__()
            cluster.engine = engine
            started.append((context, cluster))
            return cluster
        try:
            yield sim_url, start
        finally:
            for context, cluster in started:
                for name, proc in cluster.processes.items():
                    if proc.poll() is None:
                        cluster.kill(name)
                context.__exit__(None, None, None)


def servers_of(sim_url):
    """{server name: (uuid, host, task_state)}."""
    state = requests.get(sim_url + '/simulator/state', timeout=10).json()
    return {s['name']: (uuid, s['host'], s['task_state'])
            for uuid, s in state['servers'].items()}


def live_migrations(sim_url):
    """{server uuid: [status of each of its live migrations]}."""
    found = requests.get(
        sim_url + '/compute/v2.1/os-migrations?migration_type=live-migration',
        headers=migration_plans.HEADERS, timeout=10).json()['migrations']
    statuses = {}
    for migration in sorted(found, key=lambda m: m['id']):
        statuses.setdefault(migration['instance_uuid'], []).append(
            migration['status'])
    return statuses


def four_at_once(engine, sim_url):
    """A plan migrating five servers four at a time: the first of each
    source, the second of the first source (queued in Nova behind the
    first), then the second of the second source once a lane is free."""
    found = servers_of(sim_url)
    order = ['vm-0-1', 'vm-1-1', 'vm-2-1', 'vm-0-2', 'vm-1-2']
    migrations = [migration_plans.live_migration(
        found[name][0], found[name][1],
        DESTINATIONS[int(name[3])]) for name in order]
    plan, actions = migration_plans.insert_plan(
        engine, migration_plans.planned(migrations, 4))
    return plan, dict(zip(order, actions))


def start(cluster, plan):
    resp = requests.post('%s/v1/action_plans/%s/start' % (
        cluster.url, plan['uuid']), timeout=10)
    assert resp.status_code == 200, resp.text


def cancel(cluster, plan):
    resp = requests.patch('%s/v1/action_plans/%s' % (
        cluster.url, plan['uuid']), timeout=10, json=[
            {'op': 'replace', 'path': '/state', 'value': 'CANCELLING'}])
    assert resp.status_code == 200, resp.text


def check_cancelled(sim_url, engine, plan, actions, began):
    """The plan and its actions cancelled, every migration begun aborted
    in Nova and its server on its source, idle."""
    state, states = migration_plans.plan_states(engine, plan)
    assert state == 'CANCELLED'
    assert {name: states[a['uuid']] for name, a in actions.items()} == {
        name: 'CANCELLED' for name in actions}
    found = servers_of(sim_url)
    assert {name: found[name][1:] for name in actions} == {
        name: (SOURCES[int(name[3])], None) for name in actions}
    assert live_migrations(sim_url) == {
        found[name][0]: ['cancelled'] for name in began}


def test_a_cancel_aborts_the_running_live_migrations(running):
    sim_url, start_cluster = running
    cluster = start_cluster()
    cluster.start_daemons(appliers=APPLIERS[:1])
    plan, actions = four_at_once(cluster.engine, sim_url)
    start(cluster, plan)
    began = ['vm-0-1', 'vm-1-1', 'vm-2-1', 'vm-0-2']
    # Three running in Nova, the fourth queued on its source behind the
    # first.
    wait_for(lambda: live_migrations(sim_url) and sorted(
        sum(live_migrations(sim_url).values(), []))
        == ['queued', 'running', 'running', 'running'], 20,
        'four migrations under way')
    states = migration_plans.plan_states(cluster.engine, plan)[1]
    assert [states[actions[name]['uuid']] for name in began] == [
        'ONGOING'] * 4
    cancel(cluster, plan)
    asked = time.monotonic()
    wait_for(lambda: migration_plans.plan_states(cluster.engine, plan)[0]
             == 'CANCELLED', CANCEL_LIMIT, 'the plan CANCELLED', every=0.05)
    assert time.monotonic() - asked < CANCEL_LIMIT
    check_cancelled(sim_url, cluster.engine, plan, actions, began)
    with cluster.engine.connect() as conn:
        message = conn.execute(sa.select(models.Action.status_message).where(
            models.Action.id == actions['vm-0-1']['id'])).scalar_one()
    assert 'its live migration was aborted in Nova' in message


@MARIADB_ONLY
def test_a_cancel_whose_applier_is_killed_is_finished_by_the_survivor(
        running):
    sim_url, start_cluster = running
    # The runner looks at its plan's state only every 5 s: the kill
    # comes before it has aborted anything.
    cluster = start_cluster(poll_interval=5)
    cluster.start_daemons(appliers=APPLIERS)
    plan, actions = four_at_once(cluster.engine, sim_url)
    start(cluster, plan)
    began = ['vm-0-1', 'vm-1-1', 'vm-2-1', 'vm-0-2']
    wait_for(lambda: sorted(sum(live_migrations(sim_url).values(), []))
             == ['queued', 'running', 'running', 'running'], 20,
             'four migrations under way')
    runner = requests.get('%s/v1/action_plans/%s' % (
        cluster.url, plan['uuid']), timeout=10).json()['hostname']
    cancel(cluster, plan)
    cluster.kill(runner)
    killed = time.monotonic()
    # Nothing stuck: the survivor adopts the plan, aborts what still
    # runs in Nova, and ends it CANCELLED, long before the migrations
    # (41 s each) could end.
    wait_for(lambda: migration_plans.plan_states(cluster.engine, plan)[0]
             == 'CANCELLED', TAKEOVER + CANCEL_LIMIT,
             'the plan CANCELLED', every=0.1)
    assert time.monotonic() - killed < (TAKEOVER + CANCEL_LIMIT).seconds()
    check_cancelled(sim_url, cluster.engine, plan, actions, began)
