"""Serving a WSGI app from oslo.service worker processes with cheroot.

The listening socket is bound once, in the parent, so that a taken port
fails at start with a clear message and every forked worker accepts on the
same socket.
"""

import socket
import threading

from cheroot import wsgi
from oslo_log import log
from oslo_service import service

from watcher_ha.db import engine

LOG = log.getLogger(__name__)


class _InheritedSocketServer(wsgi.Server):
    """A cheroot server that accepts on a socket bound before fork."""

    def __init__(self, sock, *args, **kwargs):
        self._inherited = sock
        super().__init__(sock.getsockname()[:2], *args, **kwargs)

    def bind(self, family, type, proto=0):
        self.socket = self._inherited

    def prepare(self):
        super().prepare()
        # Every worker's selector wakes for each new connection, but only
        # one accept() gets it. cheroot leaves the listening socket with a
        # 1 s timeout, so the losers would block in accept() for a second
        # while their keep-alive clients wait: never block there.
        self.socket.setblocking(False)


def bind(host, port, backlog=128, group='api'):
    """A listening socket; ``group``: where the address is configured."""
    try:
        info = socket.getaddrinfo(host, port, socket.AF_UNSPEC,
                                  socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise SystemExit('Cannot resolve [%s] host %s: %s'
                         % (group, host, err))
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it. Without it, a response written in
    # two segments (headers, then body) waits for the client's delayed ACK:
    # 40 ms added to every request on a keep-alive connection.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(info[4])
    except OSError as err:
        sock.close()
        raise SystemExit('Cannot listen on %s:%s: %s (is another process '
                         'on that port? set [%s] host and port)'
                         % (host, port, err, group))
    sock.listen(backlog)
    return sock


class WSGIService(service.ServiceBase):
    """One worker: builds the app after fork and serves until stopped."""

    def __init__(self, name, app_factory, sock, threads, heartbeat=None):
        self.name = name
        self._app_factory = app_factory
        self._socket = sock
        self._threads = threads
        self._heartbeat = heartbeat
        self._server = None
        self._thread = None

    @property
    def address(self):
        return self._socket.getsockname()[:2]

    @property
    def port(self):
        return self.address[1]

    def start(self):
        # Connections must not be shared with the parent or siblings.
        engine.dispose()
        self._server = _InheritedSocketServer(
            self._socket, self._app_factory(), numthreads=self._threads,
            server_name=self.name)
        self._server.prepare()
        self._thread = threading.Thread(target=self._server.serve,
                                        name='%s-server' % self.name,
                                        daemon=True)
        self._thread.start()
        if self._heartbeat is not None:
            self._heartbeat.start()
        LOG.info('%s serving on %s', self.name, self._socket.getsockname())

    def stop(self, graceful=False):
        if self._heartbeat is not None:
            self._heartbeat.stop()
        if self._server is not None:
            self._server.stop()

    def wait(self):
        if self._thread is not None:
            self._thread.join()

    def reset(self):
        pass
