"""What a daemon tells systemd's watchdog (service/daemon.py): the loops it
runs itself, named when one has not gone round for much longer than its
interval; nothing while it stops."""

import threading
import time

import pytest

from watcher_ha.service import daemon

LATER = daemon.STALL_SECONDS + 1


class Manager:
    """A manager with one periodic task, run at start, which hangs until
    ``hang`` is set (at the latest when the daemon stops)."""

    def __init__(self):
        self.hang = threading.Event()
        self.entered = threading.Event()
        self.task = daemon.Periodic('hangs', self._run, lambda: 1,
                                    at_start=True)

    def _run(self):
        self.entered.set()
        self.hang.wait(30)

    def start(self, group):
        pass

    def stop(self, timeout):
        self.hang.set()

    def endpoints(self):
        return []

    def periodic(self):
        return [self.task]


def _let_it_end(manager):
    """Release the task's first run and wait for its end."""
    assert manager.entered.wait(10)
    manager.hang.set()
    deadline = time.monotonic() + 10
    while manager.task.running_since is not None:
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.fixture
def running(db):
    manager = Manager()
    svc = daemon.Daemon('watcher-ha-liveness-test', 'liveness-test',
                        manager, host='liveness-1')
    svc.start()
    try:
        yield svc, manager
    finally:
        svc.stop()


def test_a_working_daemon_has_no_stalled_loop(running):
    svc, _ = running
    assert svc.stalled() == []


def test_a_silent_heartbeat_and_scheduler_are_named(running):
    svc, manager = running
    _let_it_end(manager)
    # Nothing went round for longer than the bound (the periodic task
    # is not running: it is not named).
    assert svc.stalled(time.monotonic() + LATER) == ['heartbeat',
                                                     'scheduler']


def test_the_heartbeat_bound_follows_its_interval(running, config):
    svc, _ = running
    config.config(heartbeat_interval=100)
    later = time.monotonic() + LATER
    assert 'heartbeat' not in svc.stalled(later)
    assert 'heartbeat' in svc.stalled(later + 3 * 100)


def test_a_periodic_task_running_far_past_its_interval_is_named(running):
    svc, manager = running
    # Its first run, at start, hangs.
    assert manager.entered.wait(10)
    assert 'hangs' not in svc.stalled()
    assert 'hangs' in svc.stalled(time.monotonic() + LATER)
    _let_it_end(manager)
    assert 'hangs' not in svc.stalled(time.monotonic() + LATER)


def test_a_hung_periodic_task_is_named_until_it_ends(db):
    task = daemon.Periodic('hangs', lambda: release.wait(30), lambda: 1)
    release = threading.Event()
    runner = threading.Thread(target=task)
    runner.start()
    try:
        while task.running_since is None:
            time.sleep(0.01)
        assert not task.stuck(time.monotonic())
        assert task.stuck(time.monotonic() + LATER)
        # Its bound grows with its interval.
        slow = daemon.Periodic('slow', task.func, lambda: 3600)
        slow.running_since = task.running_since
        assert not slow.stuck(time.monotonic() + LATER)
    finally:
        release.set()
        runner.join()
    assert not task.stuck(time.monotonic() + LATER)


def test_a_stopping_daemon_names_nothing(running):
    svc, _ = running
    svc.stop()
    assert svc.stalled(time.monotonic() + LATER) == []


def test_services_run_as_one_name_each_others_stalls():
    class Stalls:
        def __init__(self, names):
            self.names = names

        def stalled(self):
            return self.names
    services = daemon.Services([Stalls(['heartbeat']), object(),
                                Stalls(['sweep_audits'])])
    assert services.stalled() == ['heartbeat', 'sweep_audits']
