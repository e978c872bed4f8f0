"""Two watcher-ha-api processes (two workers each) on one database race one
state transition with 50 concurrent requests: exactly one wins, every other
request gets a clean 409 or 400, and the row ends in a legal state.

Runs on the real MariaDB and PostgreSQL servers (see tests/servers.py).
"""

import collections
import concurrent.futures
import contextlib
import threading

import pytest
import requests
import sqlalchemy as sa

from tests import factories
from tests.functional import fixtures
from tests.functional import services
from watcher_ha.db import models

CONCURRENCY = 50
ROUNDS = 3
LOSER_STATUSES = (400, 409)
REQUEST_TIMEOUT = 30


@pytest.fixture(scope='module', params=['mysql', 'postgresql'])
def two_apis(request, tmp_path_factory):
    """Two API processes, [api] workers = 2 each, on one fresh database,
    shared by the tests of one database.

    Yields (list of API URLs, SQLAlchemy engine on the same database).
    """
    url, drop = services.create_database(request.param)
    tmp_path = tmp_path_factory.mktemp('races-%s' % request.param)
    engine = None
    try:
        configs = []
        for name in ('api-a', 'api-b'):
            directory = tmp_path / name
            directory.mkdir()
            port = fixtures.free_port()
            config = fixtures.write_config(
                directory / 'watcher-ha.conf',
                fixtures.base_config(directory, database_url=url, port=port,
                                     api={'workers': 2}))
            configs.append((config, port))
        fixtures.prepare_database(configs[0][0])
        engine = sa.create_engine(url)
        with contextlib.ExitStack() as stack:
            # One after the other: each syncs the plugin catalog at start.
            urls = [stack.enter_context(services.api_process(config, port))
                    for config, port in configs]
            yield urls, engine
    finally:
        if engine is not None:
            engine.dispose()
        drop()


def race(urls, method, path, body=None):
    """Send the same request CONCURRENTLY times at once, alternating between
    the APIs; return the list of (status, body text)."""
    barrier = threading.Barrier(CONCURRENCY)

    def one(index):
        with requests.Session() as session:
            # Connect before the barrier so that the requests leave together.
            session.get(urls[index % len(urls)] + '/', timeout=REQUEST_TIMEOUT)
            barrier.wait(timeout=REQUEST_TIMEOUT)
            resp = session.request(method, urls[index % len(urls)] + path,
                                   json=body, timeout=REQUEST_TIMEOUT)
            return resp.status_code, resp.text

    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        return list(pool.map(one, range(CONCURRENCY)))


def check_one_winner(results, what):
    counts = collections.Counter(status for status, _ in results)
    summary = '%s: status counts %s' % (what, dict(sorted(counts.items())))
    odd = [(status, text[:300]) for status, text in results
           if status not in (200,) + LOSER_STATUSES]
    assert not odd, '%s; unexpected responses: %s' % (summary, odd[:5])
    assert counts[200] == 1, summary
    assert sum(counts[s] for s in LOSER_STATUSES) == CONCURRENCY - 1, summary
    print(summary)
    return counts


def insert_recommended_plan(engine, actions=2):
    """An audit, a RECOMMENDED action plan and PENDING actions, the way a
    decision engine would leave them. Returns (plan uuid, action uuids)."""
    plan, created = factories.action_plan(engine, factories.audit(engine),
                                          actions=actions)
    return plan['uuid'], [action['uuid'] for action in created]


def state_and_version(engine, model, uuid):
    """(state, version) of the row of ``model`` whose uuid is ``uuid``."""
    with engine.connect() as conn:
        return tuple(conn.execute(sa.select(model.state, model.version)
                                  .where(model.uuid == uuid)).one())


def test_concurrent_audit_cancel_has_one_winner(two_apis):
    urls, engine = two_apis
    cancel = [{'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}]
    for round_ in range(ROUNDS):
        resp = requests.post(urls[round_ % 2] + '/v1/audits', json={
            'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'ONESHOT',
            'name': 'race-audit-%d' % round_}, timeout=REQUEST_TIMEOUT)
        assert resp.status_code == 201, resp.text
        audit = resp.json()
        assert audit['state'] == 'PENDING', audit

        results = race(urls, 'PATCH', '/v1/audits/%s' % audit['uuid'],
                       cancel)
        check_one_winner(results, 'round %d: cancel audit' % round_)
        winner = [text for status, text in results if status == 200]
        assert '"CANCELLED"' in winner[0], winner

        for url in urls:
            resp = requests.get(url + '/v1/audits/%s' % audit['uuid'],
                                timeout=REQUEST_TIMEOUT)
            assert resp.status_code == 200, resp.text
            assert resp.json()['state'] == 'CANCELLED', resp.json()
        # The row itself: moved exactly once, from version 1 to 2.
        assert state_and_version(engine, models.Audit, audit['uuid']) == (
            'CANCELLED', 2)


def test_concurrent_action_plan_start_has_one_winner(two_apis):
    urls, engine = two_apis
    for round_ in range(ROUNDS):
        plan_uuid, action_uuids = insert_recommended_plan(engine)
        resp = requests.get(urls[0] + '/v1/action_plans/%s' % plan_uuid,
                            timeout=REQUEST_TIMEOUT)
        assert resp.status_code == 200, resp.text
        assert resp.json()['state'] == 'RECOMMENDED', resp.json()

        results = race(urls, 'POST', '/v1/action_plans/%s/start' % plan_uuid)
        check_one_winner(results, 'round %d: start action plan' % round_)

        for url in urls:
            resp = requests.get(url + '/v1/action_plans/%s' % plan_uuid,
                                timeout=REQUEST_TIMEOUT)
            assert resp.status_code == 200, resp.text
            assert resp.json()['state'] == 'PENDING', resp.json()
            for action_uuid in action_uuids:
                resp = requests.get(url + '/v1/actions/%s' % action_uuid,
                                    timeout=REQUEST_TIMEOUT)
                assert resp.status_code == 200, resp.text
                assert resp.json()['state'] == 'PENDING', resp.json()
        # The row itself: moved exactly once, from version 1 to 2.
        assert state_and_version(engine, models.ActionPlan, plan_uuid) == (
            'PENDING', 2)


OVERLAP_ROUNDS = 100


def test_overlapping_plans_started_together_one_starts(two_apis):
    """Two plans touching the same server, started at once through the two
    API processes: exactly one starts, the other gets 409 naming the
    server; 100 times."""
    urls, engine = two_apis
    barrier = threading.Barrier(2)
    sessions = [requests.Session() for _ in urls]

    def start(index, plan_uuid):
        sessions[index].get(urls[index] + '/', timeout=REQUEST_TIMEOUT)
        barrier.wait(timeout=REQUEST_TIMEOUT)
        resp = sessions[index].post(
            '%s/v1/action_plans/%s/start' % (urls[index], plan_uuid),
            timeout=REQUEST_TIMEOUT)
        return resp.status_code, resp.text

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for round_ in range(OVERLAP_ROUNDS):
            server = 'server-%03d' % round_
            plans = []
            for side in ('a', 'b'):
                plan, _ = factories.action_plan(
                    engine, factories.audit(engine), kinds=[(
                        'migrate', {'resource_id': server,
                                    'migration_type': 'live',
                                    'source_node': 'src-%s-%d' % (side,
                                                                  round_),
                                    'destination_node': 'dst-%s-%d' % (
                                        side, round_)})])
                plans.append(plan['uuid'])
            results = list(pool.map(start, (0, 1), plans))
            statuses = sorted(status for status, _ in results)
            assert statuses == [200, 409], (round_, results)
            [loser] = [text for status, text in results if status == 409]
            assert 'server %s' % server in loser, loser
            [winner] = [plans[i] for i, (status, _) in enumerate(results)
                        if status == 200]
            assert winner in loser, loser
    for session in sessions:
        session.close()
    with engine.connect() as conn:
        held = conn.execute(sa.select(
            models.PlanHold.resource_id).where(
                models.PlanHold.resource_type == 'server')).scalars()
        assert sorted(held) == ['server-%03d' % i
                                for i in range(OVERLAP_ROUNDS)]
