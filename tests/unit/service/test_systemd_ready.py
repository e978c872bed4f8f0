"""A daemon tells systemd it is ready once it has started, and only
then; without systemd, that costs nothing."""

import contextlib
import os
import socket
import threading

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


# The watchdog.

def test_the_watchdog_is_fed_only_while_no_loop_stalled(notify_socket,
                                                        caplog):
    stalled = []
    watchdog = service.Watchdog(lambda: stalled,
                                os.environ['NOTIFY_SOCKET'], 0.1)
    assert watchdog.feed()
    assert notify_socket.recv(64) == b'WATCHDOG=1'
    stalled.append('heartbeat')
    assert not watchdog.feed()
    with pytest.raises(BlockingIOError):
        notify_socket.recv(64)
    assert 'Stalled: heartbeat.' in caplog.text
    stalled.clear()
    assert watchdog.feed()
    assert notify_socket.recv(64) == b'WATCHDOG=1'
    assert 'feeding systemd\'s watchdog again' in caplog.text


def test_a_failing_liveness_check_counts_as_stalled(notify_socket, caplog):
    def broken():
        raise RuntimeError('no idea')
    watchdog = service.Watchdog(broken, os.environ['NOTIFY_SOCKET'], 0.1)
    assert not watchdog.feed()
    assert 'Stalled: the liveness check (no idea)' in caplog.text


def test_the_watchdog_is_systemds_to_ask_for():
    socket_path = {'NOTIFY_SOCKET': '/run/systemd/notify'}
    assert service.Watchdog.from_environment(list, socket_path) is None
    assert service.Watchdog.from_environment(
        list, {'WATCHDOG_USEC': '60000000'}) is None
    # Asked of another process (inherited by a child).
    assert service.Watchdog.from_environment(list, dict(
        socket_path, WATCHDOG_USEC='60000000',
        WATCHDOG_PID=str(os.getpid() + 1))) is None
    for pid in ({}, {'WATCHDOG_PID': str(os.getpid())}):
        watchdog = service.Watchdog.from_environment(list, dict(
            socket_path, WATCHDOG_USEC='60000000', **pid))
        assert (watchdog.address, watchdog.interval) == (
            '/run/systemd/notify', 30.0)


def test_an_abstract_notification_socket_is_reached():
    name = 'watcher-ha-test-%d' % os.getpid()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind('\0' + name)
        service.notify('@' + name, b'WATCHDOG=1')
        assert listener.recv(64) == b'WATCHDOG=1'


class Stalling(Recording):
    def __init__(self, listener):
        super().__init__(listener)
        self.stalled_loops = []

    def stalled(self):
        return self.stalled_loops


def test_a_ready_service_feeds_the_watchdog_systemd_asked_for(
        notify_socket, monkeypatch):
    monkeypatch.setenv('WATCHDOG_USEC', '200000')
    svc = Stalling(notify_socket)
    ready = service.ReportsReady(svc)
    ready.start()
    try:
        notify_socket.setblocking(True)
        notify_socket.settimeout(5)
        assert notify_socket.recv(64) == b'READY=1'
        assert notify_socket.recv(64) == b'WATCHDOG=1'
        svc.stalled_loops.append('scheduler')
        # One may have been sent meanwhile; none after that.
        notify_socket.settimeout(0.5)
        with contextlib.suppress(TimeoutError):
            notify_socket.recv(64)
        with pytest.raises(TimeoutError):
            notify_socket.recv(64)
    finally:
        ready.watchdog.stop()


def test_without_a_watchdog_none_is_fed(notify_socket, monkeypatch):
    monkeypatch.delenv('WATCHDOG_USEC', raising=False)
    ready = service.ReportsReady(Recording(notify_socket))
    ready.start()
    assert ready.watchdog is None
    assert notify_socket.recv(64) == b'READY=1'


# The API's watchdog, in gunicorn's master.

@pytest.fixture
def answering():
    """A TCP server answering one HTTP status line per connection:
    (address, set the status)."""
    from watcher_ha.cmd import gunicorn_hooks
    status = [b'200 OK']
    server = socket.create_server(('127.0.0.1', 0))
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(4096)
                conn.sendall(b'HTTP/1.1 ' + status[0] + b'\r\n\r\n')
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield gunicorn_hooks.local_address(server), status
    stop.set()
    server.close()


def test_the_api_is_live_while_it_answers(answering):
    from watcher_ha.cmd import gunicorn_hooks
    (family, address), status = answering
    assert gunicorn_hooks.unanswered(family, address) == []
    status[0] = b'404 Not Found'
    assert gunicorn_hooks.unanswered(family, address) == []
    status[0] = b'503 Service Unavailable'
    assert gunicorn_hooks.unanswered(family, address) == [
        "the API workers (GET / answered 'HTTP/1.1 503 Service "
        "Unavailable')"]


def test_an_api_that_does_not_answer_in_time_is_stalled():
    from watcher_ha.cmd import gunicorn_hooks
    # Listening, but nobody accepts: as workers that all hang.
    with socket.create_server(('127.0.0.1', 0)) as server:
        [problem] = gunicorn_hooks.unanswered(
            *gunicorn_hooks.local_address(server), timeout=0.5)
    assert problem.startswith('the API workers (GET /: ')


def test_a_wildcard_listener_is_asked_on_the_loopback():
    from watcher_ha.cmd import gunicorn_hooks
    with socket.create_server(('0.0.0.0', 0)) as server:
        family, address = gunicorn_hooks.local_address(server)
    assert (family, address[0]) == (socket.AF_INET, '127.0.0.1')
