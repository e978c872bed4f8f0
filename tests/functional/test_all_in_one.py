"""watcher-ha-all-in-one with no server at all (SQLite, the in-process bus,
file coordination): `make demo`, which drains a compute host of an
embedded simulated cloud, and the dummy pipeline driven by the watcher
CLI with its notifications."""

import configparser
import json
import os
import pathlib
import re
import subprocess
import sys
import time

import requests

from tests.functional import fixtures
from tests.functional.daemons import cli
from tests.functional.daemons import state_of
from tests.functional.fixtures import wait_for

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _after(out, command, occurrence=-1):
    """What the demo printed after its ``occurrence``-th ``command``."""
    chunk = out.split('\n$ ' + command)[occurrence]
    return chunk.split('\n$ ')[0]


def test_demo_drains_a_host_of_the_embedded_cloud():
    result = subprocess.run([sys.executable, str(ROOT / 'tools/demo.py')],
                            capture_output=True, text=True, timeout=180)
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
    port = configparser.ConfigParser()
    port.read(config)
    url = 'http://127.0.0.1:%s' % port['api']['port']
    with open(tmp_path / 'out', 'w') as out:
        proc = subprocess.Popen(
            [os.path.join(fixtures.BIN, 'watcher-ha-all-in-one'),
             '--config-file', str(config)], stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: proc.poll() is None and _answers(url), 30,
                 'the all-in-one API')
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
    finally:
        fixtures.stop(proc)


def _answers(url):
    try:
        return requests.get(url + '/', timeout=2).status_code == 200
    except requests.RequestException:
        return False
