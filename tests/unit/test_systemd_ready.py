"""A daemon tells systemd it is ready once it has started, and only
then; without systemd, that costs nothing."""

import os
import socket

import pytest

from watcher_ha.service import service


class Recording:
    """A service that records what it is asked, and whether systemd had
    been told it was ready when its start() returned."""

    def __init__(self, listener=None):
        self.calls = []
        self.listener = listener

    def start(self):
        self.calls.append('start')
        if self.listener is not None:
            with pytest.raises(BlockingIOError):
                # Nothing sent yet: start() has not returned.
                self.listener.recv(64)

    def stop(self, graceful=True):
        self.calls.append(('stop', graceful))

    def wait(self):
        self.calls.append('wait')

    def reset(self):
        self.calls.append('reset')


@pytest.fixture
def notify_socket(tmp_path, monkeypatch):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(tmp_path / 'notify'))
    listener.setblocking(False)
    monkeypatch.setenv('NOTIFY_SOCKET', str(tmp_path / 'notify'))
    yield listener
    listener.close()


def test_ready_is_sent_once_start_has_returned(notify_socket):
    svc = Recording(notify_socket)
    ready = service.ReportsReady(svc)
    ready.start()
    assert notify_socket.recv(64) == b'READY=1'
    # Not inherited by the processes the daemon starts afterwards.
    assert 'NOTIFY_SOCKET' not in os.environ
    ready.reset()
    ready.stop(graceful=False)
    ready.wait()
    assert svc.calls == ['start', 'reset', ('stop', False), 'wait']
    with pytest.raises(BlockingIOError):
        notify_socket.recv(64)


def test_without_systemd_start_is_unchanged(monkeypatch):
    monkeypatch.delenv('NOTIFY_SOCKET', raising=False)
    svc = Recording()
    service.ReportsReady(svc).start()
    assert svc.calls == ['start']


def test_a_socket_nobody_listens_on_does_not_stop_the_start(tmp_path,
                                                             monkeypatch):
    monkeypatch.setenv('NOTIFY_SOCKET', str(tmp_path / 'gone'))
    svc = Recording()
    service.ReportsReady(svc).start()
    assert svc.calls == ['start']
