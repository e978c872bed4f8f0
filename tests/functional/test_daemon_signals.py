"""Signals an operator sends to a daemon: SIGHUP reloads, SIGTERM stops
within 10 s."""

import os
import signal
import subprocess
import time

from tests.functional import fixtures


def start(tmp_path, command):
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path))
    fixtures.prepare_database(config)
    with open(tmp_path / 'out', 'w') as out:
        proc = subprocess.Popen(
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


def test_sighup_reloads_mutable_options(tmp_path):
    proc, config = start(tmp_path, 'decision-engine')
    try:
        wait_for_log(tmp_path, 'watcher-ha-decision-engine started')
        config.write_text(config.read_text() +
                          '\n[watcher_decision_engine]\nsweep_interval = 3\n')
        os.kill(proc.pid, signal.SIGHUP)
        # oslo.config logs each mutable option that changed.
        wait_for_log(tmp_path, 'watcher_decision_engine.sweep_interval '
                               'changed from')
        wait_for_log(tmp_path, 'watcher-ha-decision-engine started on')
        time.sleep(1)
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
