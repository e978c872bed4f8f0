"""``/healthcheck`` and its backends: the database, the message bus and
the coordination backend, each answering 503 with its name when it cannot
be reached (here: an unreachable database, a bus and a Redis on ports
nobody listens on); served by the API and, beside ``/metrics``, by the
decision engine's and the applier's endpoint.
tests/functional/test_healthcheck.py stops real ones under real daemons.
"""

import socket
import threading
import time

import oslo_messaging
import pytest
import requests
from oslo_db import exception as db_exc

from watcher_ha.conf import CONF
from watcher_ha.db import engine
from watcher_ha.service import healthcheck
from watcher_ha.service import metrics_server

REACHABLE = ['database reachable', 'message bus reachable',
             'coordination backend reachable']


def closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def reasons(resp):
    return resp.json['reasons']


@pytest.fixture
def health(db):
    """The health check as the API serves it (it is the same app under
    every daemon), with its backends built from the current options."""
    from tests.helpers.in_process import Client
    return lambda: Client(healthcheck.application(CONF))


def test_every_backend_is_checked_by_default(api):
    resp = api.get('/healthcheck')
    assert resp.status == 200, resp
    assert reasons(resp) == REACHABLE


def test_an_unreachable_bus_is_named(health, config, monkeypatch):
    url = 'rabbit://guest:guest@127.0.0.1:%d/' % closed_port()
    config.config(transport_url=url)
    # The process's transport is made once: one of the unreachable bus.
    transport = oslo_messaging.get_rpc_transport(CONF, url=url)
    monkeypatch.setattr(healthcheck.rpc, 'get_transport',
                        lambda conf: transport)
    try:
        resp = health().get('/healthcheck')
    finally:
        transport.cleanup()
    assert resp.status == 503, resp
    assert reasons(resp) == ['database reachable', 'message bus unreachable',
                             'coordination backend reachable']


def test_the_in_process_bus_is_reachable_without_a_cast(health,
                                                        monkeypatch):
    sent = []
    monkeypatch.setattr(healthcheck.oslo_messaging, 'get_rpc_client',
                        lambda *args, **kwargs: sent.append(args))
    assert health().get('/healthcheck').status == 200
    assert sent == []


def test_an_unreachable_coordination_backend_is_named(health, config,
                                                      monkeypatch):
    monkeypatch.setattr(healthcheck, 'PROBE_TIMEOUT', 1.0)
    config.config(backend_url='redis://127.0.0.1:%d' % closed_port(),
                  group='coordination')
    client = health()
    started = time.monotonic()
    resp = client.get('/healthcheck')
    assert time.monotonic() - started < 10
    assert resp.status == 503, resp
    assert reasons(resp) == [
        'database reachable', 'message bus reachable',
        'coordination backend unreachable']
    # tooz is still retrying: the next request waits for the same
    # probe instead of starting another.
    probes = [thread for thread in threading.enumerate()
              if thread.name == 'probe-coordination-backend']
    assert client.get('/healthcheck').status == 503
    assert [thread for thread in threading.enumerate()
            if thread.name == 'probe-coordination-backend'] == probes


class _Failing:
    """engine.reader, failing every read with ``error``."""

    def __init__(self, error):
        self.error = error
        self.connection = self

    def using(self, context):
        raise self.error


def test_an_unreachable_database_is_named(health, monkeypatch):
    monkeypatch.setattr(engine, 'reader', _Failing(
        db_exc.DBConnectionError('connection refused')))
    resp = health().get('/healthcheck')
    assert resp.status == 503
    assert reasons(resp) == ['database unreachable', 'message bus reachable',
                             'coordination backend reachable']


def test_a_database_that_refuses_to_serve_is_not_ready(health, monkeypatch):
    """A Galera node outside the Primary component answers SELECT 1
    but refuses every read of a table (1047, which oslo.db files as a
    lost connection): not ready, not unreachable."""
    monkeypatch.setattr(engine, 'reader', _Failing(db_exc.DBConnectionError(
        "(pymysql.err.OperationalError) (1047, 'WSREP has not yet prepared "
        "node for application use')")))
    resp = health().get('/healthcheck')
    assert resp.status == 503
    assert reasons(resp) == ['database not ready', 'message bus reachable',
                             'coordination backend reachable']


def test_a_probe_that_does_not_end_fails_and_runs_once(monkeypatch):
    release = threading.Event()
    calls = []

    def hangs():
        calls.append(1)
        release.wait(10)
    probe = healthcheck.Probe(hangs, 'test')
    try:
        assert isinstance(probe(0.2), TimeoutError)
        assert isinstance(probe(0.2), TimeoutError)
        assert calls == [1]
    finally:
        release.set()
    # The hung run ends: it passed; the next call runs the check again.
    assert probe(5) is None
    assert calls == [1]
    assert probe(5) is None
    assert calls == [1, 1]


def test_a_failed_probe_returns_its_error():
    def fails():
        raise engine.DB_ERRORS[0]('gone')
    assert str(healthcheck.Probe(fails, 'test')()) == 'gone'


def test_the_metrics_endpoint_serves_the_health_check(db):
    port = closed_port()
    server = metrics_server.serve(CONF, port, [],
                                  health=healthcheck.application(CONF))
    try:
        base = 'http://127.0.0.1:%d' % port
        resp = requests.get(base + '/healthcheck', timeout=10,
                            headers={'Accept': 'application/json'})
        assert resp.status_code == 200, resp.text
        assert resp.json()['reasons'] == REACHABLE
        assert 'watcher_ha_db_statement_duration_seconds' in requests.get(
            base + '/metrics', timeout=10).text
    finally:
        server.shutdown()
        server.server_close()
