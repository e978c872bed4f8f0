"""A simulator served on a loopback port from a thread of the test
process, for the real clients (keystoneauth, keystonemiddleware) that
talk HTTP to it."""

import contextlib
import threading

from cheroot import wsgi

from watcher_ha.simulator import simulator


@contextlib.contextmanager
def simulator_serving(spec):
    """(the Simulator of ``spec``, its URL) while in the block."""
    sim = simulator.Simulator(spec)
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
