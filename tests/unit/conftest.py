"""Fixtures of the unit tests beyond tests/conftest.py's."""

import threading

import pytest

from tests.helpers import overrides
from watcher_ha.cloud import compute_hosts
from watcher_ha.service import wsgi_server
from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator


@pytest.fixture(scope='module')
def masakari_nova(conf):
    """The simulator's Compute API with Masakari's capture's hosts, and
    [nova] pointed at it."""
    spec = scenario.generate(hosts=4, servers=0, seed=1)
    for index, host in enumerate(spec['hosts'], start=1):
        host['name'] = 'fake-compute-%d' % index
    sim = simulator.Simulator(spec)
    sock = wsgi_server.bind('127.0.0.1', 0)
    server = wsgi_server._InheritedSocketServer(sock, sim, numthreads=2)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    # Module-scoped: the session's CONF set for the module, not the test.
    made = overrides.Overrides()
    made.config(group='nova', auth_type='none',
                endpoint_override='http://127.0.0.1:%d/compute/v2.1'
                % sock.getsockname()[1])
    compute_hosts.reset()
    try:
        yield sim
    finally:
        made.clear()
        compute_hosts.reset()
        server.stop()
        thread.join(5)
        sock.close()
        sim.stop()
