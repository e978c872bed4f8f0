"""tools/controllers.py without the controllers: where each queue lives
as rabbitmqctl says it, the options every daemon is given, and one
backend killed alone."""

import signal
import subprocess
import sys
import types

import pytest

from tools import controllers
from tools import partitions


def _members(tmp_path):
    return controllers.controllers(tmp_path, 23000)


def test_a_quorum_queue_lives_on_its_leader_a_classic_one_on_its_process(
        tmp_path, monkeypatch):
    # As rabbitmqctl's table prints them.
    listed = ('watcher-ha-model-engine-1\tquorum\trabbit23000-2@h\t'
              '<rabbit23000-2@h.1690.2345.0>\n'
              'reply_1\tclassic\t\t<rabbit23000-3@h.1690.2345.0>\n')
    monkeypatch.setattr(controllers, 'rabbitmqctl', lambda *a, **k: (
        types.SimpleNamespace(returncode=0, stdout=listed, stderr='')))
    assert controllers.queues(_members(tmp_path)[0]) == {
        'watcher-ha-model-engine-1': ('quorum', 'rabbit23000-2@h'),
        'reply_1': ('classic', 'rabbit23000-3@h')}


def test_a_node_that_does_not_answer_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(controllers, 'rabbitmqctl', lambda *a, **k: (
        types.SimpleNamespace(returncode=69, stdout='', stderr='nodedown')))
    with pytest.raises(controllers.ControllerError, match='nodedown'):
        controllers.queues(_members(tmp_path)[0])


def test_every_daemon_is_given_quorum_queues():
    options = controllers.rabbit_options()
    assert options['rabbit_quorum_queue'] is True
    assert options['rabbit_transient_quorum_queue'] is True
    options['rabbit_quorum_queue'] = False
    assert controllers.rabbit_options()['rabbit_quorum_queue'] is True


def test_one_backend_is_killed_the_others_left_running(tmp_path):
    c1 = _members(tmp_path)[0]
    c1.path().mkdir(parents=True)
    sleeper = [sys.executable, '-c', 'import time; time.sleep(60)']
    started = {backend: controllers._spawn(c1, backend, sleeper)
               for backend in ('rabbit', 'etcd')}
    try:
        controllers.kill_backend(c1, 'rabbit')
        assert started['rabbit'].wait(10) == -signal.SIGKILL
        assert started['etcd'].poll() is None
        assert sorted(controllers._groups(c1)) == ['etcd']
        # A backend that is not running: nothing to do.
        controllers.kill_backend(c1, 'rabbit')
    finally:
        controllers.signal_all(c1, signal.SIGKILL)
        for process in started.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                pass
        # The controller's cgroup, made as root for the spawns.
        partitions.remove([c1])


def test_a_consumer_is_on_the_node_of_its_channel(tmp_path, monkeypatch):
    listed = ('watcher-ha-model-engine-1\t<rabbit23000-3@h.1.2.3>\n'
              'watcher-ha-model-engine-1\t<rabbit23000-1@h.1690.2345.0>\n')
    monkeypatch.setattr(controllers, 'rabbitmqctl', lambda *a, **k: (
        types.SimpleNamespace(returncode=0, stdout=listed, stderr='')))
    assert controllers.consumers(_members(tmp_path)[0]) == {
        'watcher-ha-model-engine-1': ['rabbit23000-1@h', 'rabbit23000-3@h']}
