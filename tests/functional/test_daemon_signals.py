"""Signals an operator sends to a daemon: SIGHUP reloads, SIGTERM stops
within 10 s."""

import configparser
import os
import signal
import subprocess
import time

import requests

from tests.functional import fixtures
from tests.functional.fixtures import wait_for
from tools import children


def start(tmp_path, command):
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path))
    fixtures.prepare_database(config)
    with open(tmp_path / 'out', 'w') as out:
        proc = children.popen(
            [os.path.join(fixtures.BIN, 'watcher-ha-' + command),
             '--config-file', str(config)], stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    return proc, config


def wait_for_log(tmp_path, text, timeout=20):
    deadline = time.monotonic() + timeout
    log = tmp_path / 'watcher-ha.log'
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text():
            return
        time.sleep(0.2)
    raise AssertionError('%r not logged' % text)


def _log(tmp_path):
    return (tmp_path / 'watcher-ha.log').read_text()


def test_sighup_reloads_mutable_options_in_place(tmp_path):
    proc, config = start(tmp_path, 'decision-engine')
    try:
        wait_for_log(tmp_path, 'watcher-ha-decision-engine started on')
        config.write_text(config.read_text() +
                          '\n[watcher_decision_engine]\nsweep_interval = 3\n')
        os.kill(proc.pid, signal.SIGHUP)
        # oslo.config logs each mutable option that changed.
        wait_for_log(tmp_path, 'watcher_decision_engine.sweep_interval '
                               'changed from [None] to [3]')
        wait_for_log(tmp_path, 'SIGHUP: configuration reloaded')
        time.sleep(1)
        assert proc.poll() is None
        # Applied in place: the engine was not restarted.
        assert _log(tmp_path).count(
            'watcher-ha-decision-engine started on') == 1
    finally:
        fixtures.stop(proc)


def _api(url, method, path, **kwargs):
    resp = requests.request(method, url + path, timeout=10, **kwargs)
    assert resp.status_code < 300, resp.text
    return resp.json() if resp.content else None


def _audit_plan(url):
    audit = _api(url, 'POST', '/v1/audits', json={
        'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'ONESHOT',
        'parameters': {'para1': 4}})['uuid']
    wait_for(lambda: _api(
        url, 'GET', '/v1/audits/' + audit)['state'] == 'SUCCEEDED',
        30, 'audit %s SUCCEEDED' % audit)
    [plan] = _api(url, 'GET', '/v1/action_plans?audit_uuid='
                  + audit)['action_plans']
    return plan['uuid']


def test_sighup_leaves_the_all_in_one_running_its_work(tmp_path):
    """SIGHUP while a plan runs: the plan goes on and succeeds, each action
    runs once, nothing restarts, and the periodic tasks still run (a new
    audit is still taken and computed afterwards)."""
    proc, config = start(tmp_path, 'all-in-one')
    written = configparser.ConfigParser()
    written.read(config)
    url = 'http://127.0.0.1:%s' % written['api']['port']
    try:
        wait_for_log(tmp_path, 'watcher-ha-api serving on')
        plan = _audit_plan(url)
        _api(url, 'POST', '/v1/action_plans/%s/start' % plan)
        wait_for(lambda: _api(
            url, 'GET', '/v1/action_plans/' + plan)['state'] == 'ONGOING',
                 30, 'plan ONGOING')
        config.write_text(config.read_text() + '\n[watcher_decision_engine]'
                                               '\nsweep_interval = 3\n')
        os.kill(proc.pid, signal.SIGHUP)
        wait_for_log(tmp_path, 'SIGHUP: configuration reloaded')
        wait_for(lambda: _api(
            url, 'GET', '/v1/action_plans/' + plan)['state'] == 'SUCCEEDED',
                 30, 'plan SUCCEEDED')
        actions = _api(url, 'GET', '/v1/actions?action_plan_uuid='
                       + plan)['actions']
        assert {a['state'] for a in actions} == {'SUCCEEDED'}
        log = _log(tmp_path)
        for action in actions:
            # The applier logs each action it starts executing.
            assert log.count('Executing action %s' % action['uuid']) == 1
        for binary in ('watcher-ha-decision-engine', 'watcher-ha-applier'):
            assert log.count('%s started on' % binary) == 1, binary
        # The periodic sweeps and the RPC server outlived the SIGHUP.
        _audit_plan(url)
        assert proc.poll() is None
    finally:
        fixtures.stop(proc)


def test_sigterm_stops_within_ten_seconds(tmp_path):
    commands = ('decision-engine', 'applier', 'api', 'all-in-one')
    procs = {command: start(_subdir(tmp_path, command), command)[0]
             for command in commands}
    for command in commands:
        wait_for_log(tmp_path / command, 'serving on' if 'api' in command
                     or command == 'all-in-one' else 'started on')
    for command, proc in procs.items():
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(15)
        assert time.monotonic() - started < 10, command


def _subdir(tmp_path, name):
    path = tmp_path / name
    path.mkdir()
    return path
