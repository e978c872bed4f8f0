"""A simulator (or any WSGI app) served on a loopback port from a thread
of the test process, for the real clients (keystoneauth,
keystonemiddleware, novaclient) that talk HTTP to it."""

import contextlib
import threading
from wsgiref import simple_server

from cheroot import wsgi

from watcher_ha.simulator import simulator


@contextlib.contextmanager
def simulator_serving(spec, clock=None):
    """(the Simulator of ``spec``, its URL) while in the block; its
    services tell the time by ``clock`` (real time when None)."""
    sim = simulator.Simulator(spec, clock=clock)
    server = wsgi.Server(('127.0.0.1', 0), sim, numthreads=8)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True,
                              name='simulator-%d' % server.bind_addr[1])
    thread.start()
    try:
        yield sim, 'http://127.0.0.1:%d' % server.bind_addr[1]
    finally:
        server.stop()
        thread.join(10)
        sim.stop()


class _Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def app_serving(app):
    """The URL of the WSGI ``app``, served one request at a time (no
    access log), while in the block."""
    server = simple_server.make_server('127.0.0.1', 0, app,
                                       handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield 'http://127.0.0.1:%d' % server.server_port
    finally:
        server.shutdown()
        thread.join(5)
        server.server_close()
