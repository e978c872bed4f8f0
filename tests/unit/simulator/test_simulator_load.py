"""PUT /simulator/servers/{uuid}/load: a server's load changed as a
workload would change it, seen in the metrics the next scrape exports."""

import pytest
import webob

from watcher_ha.simulator import metrics
from watcher_ha.simulator import simulator

UUID = '0a000000-0000-4000-8000-000000000001'


@pytest.fixture
def sim():
    found = simulator.Simulator({
        'hosts': [{'name': 'compute-0', 'vcpus': 8, 'memory_mb': 32768,
                   'disk_gb': 500}],
        'servers': [{'name': 'vm-a', 'uuid': UUID, 'flavor': 'm1.small',
                     'host': 'compute-0',
                     'load': {'profile': 'steady', 'cpu': 0.1}}]})
    yield found
    found.stop()


def put(sim, uuid, body):
    req = webob.Request.blank('/simulator/servers/%s/load' % uuid,
                              method='PUT')
    req.json = body
    return req.get_response(sim)


def test_the_new_load_is_what_the_server_uses(sim):
    resp = put(sim, UUID, {'cpu': 0.8})
    assert resp.status_int == 200
    assert resp.json == {'profile': 'steady', 'cpu': 0.8}
    server = sim.cloud.servers[UUID]
    assert metrics.cpu_share(server.load, 0) == 0.8


@pytest.mark.parametrize('body, message', [
    ({'cpu': 1.5}, 'from 0 to 1'),
    ({'cpu': True}, 'from 0 to 1'),
    ({'cpu': '0.5'}, 'from 0 to 1'),
    ({'profile': 'bursty'}, 'profile must be one of steady'),
    ({'cpus': 0.5}, 'unknown: cpus'),
])
def test_bad_loads_are_refused(sim, body, message):
    resp = put(sim, UUID, body)
    assert resp.status_int == 400
    assert message in resp.text
    assert sim.cloud.servers[UUID].load['cpu'] == 0.1


def test_an_unknown_server_is_404(sim):
    assert put(sim, '0a000000-0000-4000-8000-00000000000f',
               {'cpu': 0.5}).status_int == 404
