"""The simulator's Bare Metal API (Ironic v1) for fencing: one node per
compute host, Ironic's microversion negotiation and error bodies, and
power actions that are accepted at once, done later, locked meanwhile,
and fail as an unreachable BMC makes them fail."""

import json

import pytest
import webob

from tests.helpers.simulator_calls import request
from tests.helpers.simulator_calls import until
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import simulator
from watcher_ha.simulator.nova import hosts


@pytest.fixture
def sim():
    found = simulator.Simulator({
        'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8,
                   'memory_mb': 32768, 'disk_gb': 500} for i in range(3)],
        'servers': [{'name': 'vm-a', 'flavor': 'm1.small',
                     'host': 'compute-0'}],
        'power_seconds': 0.05, 'boot_seconds': 0.05},
        clock=clock_mod.FakeClock())
    yield found
    found.stop()


def call(sim, method, path, body=None, version=None):
    return request(sim, method, '/baremetal' + path, body, {
        'X-OpenStack-Ironic-API-Version': version} if version else {})


def fault(resp):
    """Ironic's error: a JSON document in a JSON string."""
    inner = json.loads(resp.json['error_message'])
    assert set(inner) == {'faultcode', 'faultstring', 'debuginfo'}
    return inner['faultstring']


def wait(sim, check, timeout=5):
    """Move the simulator's time on until ``check`` holds."""
    until(check, sim.clock.advance, timeout)


def node(sim, ident, version='1.96'):
    return call(sim, 'GET', '/v1/nodes/%s' % ident, version=version).json


def test_version_discovery(sim):
    root = call(sim, 'GET', '/').json
    assert root['default_version']['min_version'] == '1.1'
    assert root['default_version']['version'] == '1.96'
    assert root['versions'][0]['links'][0]['href'].endswith(
        '/baremetal/v1/')
    resp = call(sim, 'GET', '/v1')
    assert resp.json['id'] == 'v1'
    assert resp.headers['X-OpenStack-Ironic-API-Minimum-Version'] == '1.1'
    assert resp.headers['X-OpenStack-Ironic-API-Maximum-Version'] == '1.96'
    # No version asked: the minimum.
    assert resp.headers['X-OpenStack-Ironic-API-Version'] == '1.1'


@pytest.mark.parametrize('asked,served', [
    ('latest', '1.96'), ('1.8', '1.8'), ('baremetal 1.31', '1.31')])
def test_microversions_are_negotiated(sim, asked, served):
    if asked.startswith('baremetal'):
        resp = webob.Request.blank('/baremetal/v1/nodes', headers={
            'OpenStack-API-Version': asked}).get_response(sim)
    else:
        resp = call(sim, 'GET', '/v1/nodes', version=asked)
    assert resp.status_int == 200
    assert resp.headers['X-OpenStack-Ironic-API-Version'] == served


@pytest.mark.parametrize('asked,message', [
    ('1.97', 'Version 1.97 was requested but the minor version is not '
             'supported by this service. The supported version range is: '
             '[1.1, 1.96].'),
    ('2.1', 'Mutually exclusive versions requested. Version 2.1 requested '
            'but not supported by this service. The supported version '
            'range is: [1.1, 1.96].'),
    ('one', 'Invalid value for X-OpenStack-Ironic-API-Version header'),
])
def test_a_version_out_of_range_is_406(sim, asked, message):
    resp = call(sim, 'GET', '/v1/nodes', version=asked)
    assert resp.status_int == 406
    assert fault(resp) == message
    assert json.loads(resp.json['error_message'])['faultcode'] == 'Client'


def test_nodes_are_the_compute_hosts(sim):
    nodes = call(sim, 'GET', '/v1/nodes', version='1.96').json['nodes']
    assert [n['name'] for n in nodes] == ['compute-0', 'compute-1',
                                          'compute-2']
    assert set(nodes[0]) == {'uuid', 'name', 'instance_uuid',
                             'power_state', 'provision_state',
                             'maintenance', 'links'}
    assert (nodes[0]['power_state'], nodes[0]['provision_state'],
            nodes[0]['maintenance']) == ('power on', 'active', False)
    # Names appeared in 1.5.
    old = call(sim, 'GET', '/v1/nodes', version='1.4').json['nodes']
    assert 'name' not in old[0]
    # By uuid or by name.
    assert node(sim, nodes[1]['uuid'])['name'] == 'compute-1'
    shown = node(sim, 'compute-1')
    assert shown['uuid'] == nodes[1]['uuid']
    assert (shown['target_power_state'], shown['last_error'],
            shown['reservation']) == (None, None, None)
    assert shown['states'][0]['href'].endswith(
        '/baremetal/v1/nodes/%s/states' % shown['uuid'])


def test_fields_select_what_a_node_shows(sim):
    resp = call(sim, 'GET', '/v1/nodes?fields=uuid,power_state',
                version='1.8')
    assert set(resp.json['nodes'][0]) == {'uuid', 'power_state', 'links'}
    shown = call(sim, 'GET', '/v1/nodes/compute-0?fields=name,last_error',
                 version='1.96').json
    assert shown == {'name': 'compute-0', 'last_error': None,
                     'links': shown['links']}
    assert call(sim, 'GET', '/v1/nodes?fields=uuid',
                version='1.7').status_int == 406
    # A field newer than the version asked is not acceptable.
    assert call(sim, 'GET', '/v1/nodes?fields=fault',
                version='1.41').status_int == 406
    resp = call(sim, 'GET', '/v1/nodes?fields=colour', version='1.96')
    assert resp.status_int == 400
    assert fault(resp) == 'Field(s) "colour" are not valid'


def test_detail_and_paging(sim):
    detail = call(sim, 'GET', '/v1/nodes/detail', version='1.96').json
    assert 'last_error' in detail['nodes'][0]
    page = call(sim, 'GET', '/v1/nodes?limit=2', version='1.96').json
    assert len(page['nodes']) == 2
    assert 'marker=%s' % page['nodes'][1]['uuid'] in page['next']
    rest = call(sim, 'GET', '/v1/nodes?limit=2&marker=%s'
                % page['nodes'][1]['uuid'], version='1.96').json
    assert [n['name'] for n in rest['nodes']] == ['compute-2']
    assert 'next' not in rest
    assert call(sim, 'GET', '/v1/nodes?detail=True',
                version='1.42').status_int == 400


@pytest.mark.parametrize('ident,version,status,message', [
    ('compute-9', '1.96', 404, 'Node compute-9 could not be found.'),
    ('compute-0', '1.4', 404, 'Node compute-0 could not be found.'),
])
def test_unknown_nodes(sim, ident, version, status, message):
    resp = call(sim, 'GET', '/v1/nodes/%s' % ident, version=version)
    assert resp.status_int == status
    assert fault(resp) == message


def test_power_off_is_accepted_then_done(sim):
    resp = call(sim, 'PUT', '/v1/nodes/compute-0/states/power',
                {'target': 'power off'}, '1.96')
    assert resp.status_int == 202
    assert resp.body == b''
    assert resp.headers['Location'].endswith(
        '/baremetal/v1/nodes/compute-0/states')
    shown = node(sim, 'compute-0')
    assert (shown['power_state'], shown['target_power_state']) == (
        'power on', 'power off')
    assert shown['reservation'] == 'controller'
    # One action at a time: the node is locked.
    again = call(sim, 'PUT', '/v1/nodes/compute-0/states/power',
                 {'target': 'power on'}, '1.96')
    assert again.status_int == 409
    assert fault(again) == (
        'Node %s is locked by host controller, please retry after the '
        'current operation is completed.' % shown['uuid'])
    wait(sim, lambda: node(sim, 'compute-0')['target_power_state'] is None)
    shown = node(sim, 'compute-0')
    assert (shown['power_state'], shown['reservation']) == ('power off',
                                                            None)
    host = sim.cloud.hosts['compute-0']
    assert not host.powered_on and not host.reporting
    states = call(sim, 'GET', '/v1/nodes/compute-0/states',
                  version='1.96').json
    assert states['power_state'] == 'power off'


def test_power_on_boots_the_host_and_its_compute(sim):
    hosts.lose_power(sim.cloud, 'compute-0')
    assert node(sim, 'compute-0')['power_state'] == 'power off'
    call(sim, 'PUT', '/v1/nodes/compute-0/states/power',
         {'target': 'power on'}, '1.96')
    host = sim.cloud.hosts['compute-0']
    wait(sim, lambda: host.reporting)
    assert node(sim, 'compute-0')['power_state'] == 'power on'
    # The guests died with the power; Nova stops their servers.
    [server] = sim.cloud.servers.values()
    assert server.vm_state == 'stopped'


def test_reboot_brings_a_crashed_host_back(sim):
    hosts.crash(sim.cloud, 'compute-1')
    # The BMC of a crashed host still says power on.
    assert node(sim, 'compute-1')['power_state'] == 'power on'
    call(sim, 'PUT', '/v1/nodes/compute-1/states/power',
         {'target': 'power on'}, '1.96')
    wait(sim, lambda: node(sim, 'compute-1')['reservation'] is None)
    # Already on: nothing happens.
    assert not sim.cloud.hosts['compute-1'].reporting
    call(sim, 'PUT', '/v1/nodes/compute-1/states/power',
         {'target': 'reboot'}, '1.96')
    wait(sim, lambda: sim.cloud.hosts['compute-1'].reporting)


def test_an_unreachable_bmc_fails_the_power_off(sim):
    resp = webob.Request.blank('/simulator/faults', method='PUT',
                               json={'bmc_unreachable': ['compute-2']}
                               ).get_response(sim)
    assert resp.json['bmc_unreachable'] == ['compute-2']
    call(sim, 'PUT', '/v1/nodes/compute-2/states/power',
         {'target': 'power off'}, '1.96')
    wait(sim, lambda: node(sim, 'compute-2')['target_power_state'] is None)
    shown = node(sim, 'compute-2')
    assert shown['power_state'] == 'power on'
    assert shown['last_error'] == ("Failed to change power state to 'power "
                                   "off': IPMI call failed: power status.")
    assert sim.cloud.hosts['compute-2'].powered_on
    # A new action clears the error; once the BMC answers, it works.
    sim.faults.configure({'bmc_unreachable': []})
    call(sim, 'PUT', '/v1/nodes/compute-2/states/power',
         {'target': 'power off'}, '1.96')
    assert node(sim, 'compute-2')['last_error'] is None
    wait(sim, lambda: node(sim, 'compute-2')['power_state'] == 'power off')


@pytest.mark.parametrize('body,version,status,message', [
    ({'target': 'off'}, '1.96', 400,
     'The requested action "off" can not be performed on node "compute-0" '
     'while it is in state "power on".'),
    ({'target': 'soft power off'}, '1.26', 406, 'Request not acceptable.'),
    ({'target': 'power off', 'timeout': 30}, '1.26', 406,
     'Request not acceptable.'),
    ({'target': 'power off', 'timeout': 0}, '1.96', 400,
     'timeout has to be positive integer'),
    ({}, '1.96', 400, 'Missing mandatory parameter: target'),
    ({'target': 'power off', 'force': True}, '1.96', 400,
     'Unexpected arguments: force'),
    ({'target': 7}, '1.96', 400, 'Expected string for target: 7'),
])
def test_power_requests_ironic_refuses(sim, body, version, status, message):
    resp = call(sim, 'PUT', '/v1/nodes/compute-0/states/power', body,
                version)
    assert resp.status_int == status
    assert fault(resp) == message
    assert sim.ironic.node('compute-0').reservation is None


def test_soft_power_off_from_1_27(sim):
    assert call(sim, 'PUT', '/v1/nodes/compute-0/states/power',
                {'target': 'soft power off', 'timeout': 60},
                '1.27').status_int == 202
    wait(sim, lambda: not sim.cloud.hosts['compute-0'].powered_on)


def test_the_catalog_names_ironic(sim):
    resp = webob.Request.blank('/identity/v3/auth/tokens', method='POST',
                               json={'auth': {'identity': {
                                   'methods': ['password'], 'password': {
                                       'user': {'name': 'admin',
                                                'password': 'admin',
                                                'domain': {
                                                    'name': 'Default'}}}},
                                   # Keystone's unscoped tokens have no
                                   # catalog.
                                   'scope': {'system': {'all': True}}}}
                               ).get_response(sim)
    [baremetal] = [s for s in resp.json['token']['catalog']
                   if s['type'] == 'baremetal']
    assert baremetal['endpoints'][0]['url'].endswith('/baremetal')


def test_injected_failures_answer_in_ironics_format(sim):
    sim.faults.configure({'api_failures': [
        {'method': 'PUT', 'path': '/states/power$', 'status': 503,
         'count': 1}]})
    resp = call(sim, 'PUT', '/v1/nodes/compute-0/states/power',
                {'target': 'power off'}, '1.96')
    assert resp.status_int == 503
    assert json.loads(resp.json['error_message'])['faultcode'] == 'Server'
    assert sim.cloud.hosts['compute-0'].powered_on
