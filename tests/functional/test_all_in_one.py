"""watcher-ha-all-in-one with no server at all (SQLite, the in-process bus,
file coordination): `make demo`, which drains a compute host of an
embedded simulated cloud, and the dummy pipeline driven by the watcher
CLI with its notifications."""

import configparser
import contextlib
import http.server
import json
import pathlib
import re
import socket
import sys
import threading
import time

import pytest
import requests

from tests.functional import fixtures
from tests.functional import services
from tests.functional.daemons import cli
from tests.functional.daemons import state_of
from tests.functional.fixtures import wait_for
from tools import children
from watcher_ha.simulator import scenario

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _after(out, command, occurrence=-1):
    """What the demo printed after its ``occurrence``-th ``command``."""
    chunk = out.split('\n$ ' + command)[occurrence]
    return chunk.split('\n$ ')[0]


# What the demo does on an idle machine, in seconds: two db-manage runs,
# the all-in-one's start and the compute model's first sync, some twenty
# CLI calls of a second or two each, the audit and a plan of live
# migrations whose timers are the applier's poll_interval (0.5 s) and
# each migration's RAM over the simulated bandwidth (a second or less).
DEMO_WORK = 90


def demo(*args, work=DEMO_WORK):
    """Run tools/demo.py with ``args``; its CompletedProcess."""
    # Its own simulator port: the demos of the tests run side by side.
    return children.run([sys.executable, str(ROOT / 'tools/demo.py'),
                         '--simulator-port', str(fixtures.free_port()),
                         *args], capture_output=True, text=True,
                        timeout=fixtures.Bound(work=work).seconds())


def test_demo_drains_a_host_of_the_embedded_cloud(tmp_path):
    result = demo('--state-dir', str(tmp_path / 'demo'))
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    host = 'compute-0002'
    before = _after(out, 'openstack server list', 1)
    servers = re.findall(r'\| (vm-\d+) +\| ACTIVE', before)
    assert servers, before
    assert '... audit drain-%s is SUCCEEDED' % host in out
    planned = _after(out, 'watcher action list', 1)
    assert planned.count('migrate') == len(re.findall(
        r'\| (vm-\d+) ', before)), planned
    assert 'change_nova_service_state' in planned
    assert 'is SUCCEEDED' in out.split('$ watcher actionplan start')[1]
    executed = _after(out, 'watcher action list')
    assert executed.count('SUCCEEDED') == planned.count('PENDING') > 1
    services = _after(out, 'openstack compute service list')
    assert re.search(r'%s +\| disabled +\| up +\| watcher_maintaining'
                     % host, services), services
    assert 'vm-' not in _after(out, 'openstack server list')
    registered = _after(out, 'watcher service list')
    for binary in ('watcher-ha-api', 'watcher-ha-decision-engine',
                   'watcher-ha-applier'):
        assert binary in registered


class _Leftover(http.server.BaseHTTPRequestHandler):
    """An earlier all-in-one still on the port: answers every call."""

    def do_GET(self):
        self.server.paths.append(self.path)
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.end_headers()
        self.wfile.write(b'{}')

    do_POST = do_PATCH = do_GET

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _port_taken(answering):
    """A port something else listens on: an HTTP server answering every
    call (``answering``), or a socket that never accepts. Its port, and
    the paths it was asked."""
    if answering:
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Leftover)
        server.paths = []
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield server.server_address[1], server.paths
        finally:
            server.shutdown()
            server.server_close()
    else:
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            sock.listen()
            yield sock.getsockname()[1], []


@pytest.mark.parametrize('answering', [True, False],
                         ids=['a leftover answering', 'a bare socket'])
def test_the_demo_drives_only_its_own_all_in_one(tmp_path, answering):
    """With its port taken, the demo's all-in-one cannot listen: the demo
    fails, saying so with that process's own output (which it keeps in a
    file it names), and never calls whatever holds the port."""
    with _port_taken(answering) as (port, asked):
        result = demo('--port', str(port), '--state-dir',
                      str(tmp_path / 'demo'), work=30)
    assert result.returncode != 0, result.stdout
    output = tmp_path / 'demo' / 'watcher-ha-all-in-one.out'
    assert str(output) in result.stderr, result.stderr
    refused = 'Cannot listen on 127.0.0.1:%d' % port
    assert refused in result.stderr, result.stderr
    assert refused in output.read_text()
    assert asked == [], asked


def _notifications(log_text):
    """(event_type, payload data) of every notification the log driver
    wrote: oslo.messaging's ``log`` driver logs each message as JSON."""
    found = []
    for line in log_text.splitlines():
        if ' oslo.messaging.notification.' not in line:
            continue
        message = json.loads(line[line.index('{'):])
        found.append((message['event_type'],
                      message['payload']['watcher_object.data']))
    return found


def test_dummy_pipeline_in_the_all_in_one_with_no_server(tmp_path):
    """Issue 3's scenario, embedded: SQLite, the in-process bus, file
    coordination, and notifications through oslo.messaging's log driver
    (nothing else could receive them from outside the process)."""
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf', dict(
        fixtures.base_config(tmp_path),
        oslo_messaging_notifications={'driver': 'log'}))
    fixtures.prepare_database(config)
    with services.all_in_one(config, _api_port(config)) as url:
        audit = cli(url, 'audit', 'create', '-g', 'dummy', '-s', 'dummy',
                    '-t', 'ONESHOT', '-p', 'para1=1')
        started = time.monotonic()
        wait_for(lambda: state_of(url, 'audits', audit['UUID'])
                 == 'SUCCEEDED', 10, 'audit SUCCEEDED')
        assert time.monotonic() - started < 10
        [plan] = cli(url, 'actionplan', 'list', '--audit', audit['UUID'])
        assert plan['State'] == 'RECOMMENDED'
        actions = cli(url, 'action', 'list', '--action-plan', plan['UUID'])
        assert sorted(a['Action'] for a in actions) == ['nop', 'nop',
                                                        'sleep']
        cli(url, 'actionplan', 'start', plan['UUID'])
        wait_for(lambda: state_of(url, 'action_plans', plan['UUID'])
                 == 'SUCCEEDED', 20, 'plan SUCCEEDED')
        host = cli(url, 'actionplan', 'show', plan['UUID'])['Hostname']
        assert host

        def seen(uuid, expected):
            events = [(event, data) for event, data in _notifications(
                (tmp_path / 'watcher-ha.log').read_text())
                if data.get('uuid') == uuid]
            return set(expected) <= {e for e, _ in events} and events
        audit_events = wait_for(lambda: seen(audit['UUID'], [
            'audit.create', 'audit.update', 'audit.strategy.start',
            'audit.strategy.end', 'audit.planner.start',
            'audit.planner.end']), 10, 'audit notifications')
        plan_events = wait_for(lambda: seen(plan['UUID'], [
            'action_plan.create', 'action_plan.update',
            'action_plan.execution.start', 'action_plan.execution.end']),
            10, 'action plan notifications')
        for event, data in audit_events + plan_events:
            assert data['host'] == host, (event, data)


def _api_port(config):
    parsed = configparser.ConfigParser()
    parsed.read(config)
    return int(parsed['api']['port'])


def _storage_model(url):
    """{volume name: pool} of the all-in-one's storage model, or None
    while it is not ready."""
    try:
        reply = requests.get(url + '/v1/data_model', params={
            'data_model_type': 'storage'}, headers={
            'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.2'},
            timeout=10)
    except requests.RequestException:
        return None     # not listening yet
    if reply.status_code != 200:
        return None
    return {entry['volume_name']: entry.get('volume_pool')
            for entry in reply.json()['context'] if 'volume_name' in entry}


def test_the_all_in_one_storage_model_follows_cinders_notifications(
        tmp_path, own_rabbit):
    """The embedded cloud's Cinder notifications go out on an in-process
    bus of their own (another exchange than Nova's, so another transport)
    even when the all-in-one's transport is RabbitMQ: the engine listens
    on that bus too, so a volume created after the first resync shows in
    the storage model with no resync (a period of an hour)."""
    _storage_follows_notifications(tmp_path, own_rabbit)


def _storage_follows_notifications(tmp_path, transport_url):
    sim_port = fixtures.free_port()
    cloud = 'http://127.0.0.1:%d' % sim_port
    spec = scenario.generate(hosts=2, servers=2, seed=3, volumes=3)
    scenario.dump(spec, tmp_path / 'cloud.yaml')
    endpoints = {'nova': '/compute/v2.1', 'placement': '/placement',
                 'cinder': '/volume/v3'}
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf', dict(
        fixtures.base_config(tmp_path, DEFAULT={
            'transport_url': transport_url}),
        simulator={'scenario': str(tmp_path / 'cloud.yaml'),
                   'port': sim_port},
        watcher_decision_engine={'collectors': 'compute,storage'},
        **{'watcher_cluster_data_model_collectors.storage': {
            'period': 3600}},
        **{group: {'auth_type': 'none', 'endpoint_override': cloud + path}
           for group, path in endpoints.items()}))
    fixtures.prepare_database(config)
    with services.all_in_one(config, _api_port(config), timeout=60) as url:
        first = wait_for(lambda: _storage_model(url), 60,
                         'the storage model\'s first resync')
        assert len(first) == 3, first
        made = requests.post(cloud + '/volume/v3/volumes', json={
            'volume': {'size': 1, 'name': 'after-the-resync'}}, timeout=10)
        assert made.status_code == 202, made.text
        wait_for(lambda: 'after-the-resync' in (_storage_model(url) or {}),
                 10, 'the new volume in the storage model')
