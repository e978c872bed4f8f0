"""Serving a WSGI app from oslo.service worker processes with cheroot.

The listening socket is bound once, in the parent, so that a taken port
fails at start with a clear message and every forked worker accepts on the
same socket.
"""

import re
import socket
import threading

from cheroot import server as cheroot_server
from cheroot import wsgi
from oslo_log import log
from oslo_service import service

from watcher_ha.db import engine

LOG = log.getLogger(__name__)


# A request line whose target starts with two slashes or more.
_REPEATED_LEADING_SLASHES = re.compile(rb'^([^ ]+ )//+')


class _LeadingSlashesCollapsed:
    """The request's reader, with the request line's leading slashes
    collapsed to one."""

    def __init__(self, rfile):
        self._rfile = rfile

    def readline(self, *args):
        return _REPEATED_LEADING_SLASHES.sub(
            rb'\1/', self._rfile.readline(*args), count=1)

    def __getattr__(self, name):
        return getattr(self._rfile, name)


class _Request(cheroot_server.HTTPRequest):
    """cheroot's request, taking ``GET //v1/audits`` as ``/v1/audits``.

    That is what a client asks when it joins a catalog endpoint ending
    with a slash to a path. cheroot reads a target starting with ``//``
    as an authority and a path (RFC 3986's network-path reference), which
    only a proxy may be sent, and answers a text/plain 400 without calling
    the application. Collapsed before cheroot reads it, the target goes
    through all of cheroot's checks as if the client had sent one slash.
    """

    def read_request_line(self):
        rfile = self.rfile
        self.rfile = _LeadingSlashesCollapsed(rfile)
        try:
            return super().read_request_line()
        finally:
            self.rfile = rfile


class _Connection(cheroot_server.HTTPConnection):
    RequestHandlerClass = _Request


class _ListeningSocket(socket.socket):
    """A listening socket that remembers its backlog."""

    backlog = None


class _InheritedSocketServer(wsgi.Server):
    """A cheroot server that accepts on a socket bound before fork."""

    ConnectionClass = _Connection

    def __init__(self, sock, *args, **kwargs):
        self._inherited = sock
        # cheroot's prepare() calls listen() again, with this backlog:
        # its own default (5) would refuse a burst of clients.
        kwargs['request_queue_size'] = sock.backlog
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
    """A listening socket, queueing up to ``backlog`` connections not yet
    accepted; ``group``: where the address is configured."""
    try:
        info = socket.getaddrinfo(host, port, socket.AF_UNSPEC,
                                  socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise SystemExit('Cannot resolve [%s] host %s: %s'
                         % (group, host, err))
    sock = _ListeningSocket(info[0], socket.SOCK_STREAM)
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
    sock.backlog = backlog
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
