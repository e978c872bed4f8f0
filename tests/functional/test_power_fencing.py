"""power_off_host against the simulator's Bare Metal API (auth_type none,
[ironic] of this process): a partitioned host, still running, is powered
off and the action returns only once Ironic confirms it; a host already
off is done without a power request; every power request passes the
fence; a lock is asked again; an unreachable BMC fails with Ironic's
last_error; an unknown node says how to map it; recover() answers, after
a power action under way has ended."""

import pytest
import requests
from oslo_config import cfg

from tests.functional import cloud as cloud_mod
from tests.functional import fixtures
from tests.functional import services
from tests.helpers.fence import Fence
from watcher_ha.applier import fencing
from watcher_ha.applier.actions import base
from watcher_ha.common import holds
from watcher_ha.applier.actions import power_off_host
from watcher_ha.cloud import clients
from watcher_ha.conf import clients as clients_conf
from watcher_ha.conf import CONF
from watcher_ha.simulator import scenario

POWER_PATH = r'/states/power$'


def ironic_of_this_process(url, power_timeout=10):
    """[ironic] of this process pointed at the simulator at ``url``, the
    applier's polling quick, in the block."""
    return cloud_mod.overridden((
        ('auth_type', 'none', 'ironic'),
        ('endpoint_override', url + '/baremetal', 'ironic'),
        ('power_timeout', power_timeout, 'ironic'),
        ('poll_interval', 0.1, 'watcher_applier')))


@pytest.fixture
def spec():
    found = scenario.generate(hosts=3, servers=3, seed=4)
    # The BMC takes a little while: a wait that ends early shows.
    found['power_seconds'] = 0.5
    return found


@pytest.fixture
def cloud(tmp_path, spec):
    with services.simulator(tmp_path, spec) as url, \
            ironic_of_this_process(url):
        yield url


def event(url, host, what):
    requests.post('%s/simulator/hosts/%s/%s' % (url, host, what),
                  timeout=10).raise_for_status()


def faults(url, **spec):
    requests.put(url + '/simulator/faults', json=spec,
                 timeout=10).raise_for_status()


def machine(url, host):
    return requests.get(url + '/simulator/state',
                        timeout=10).json()['hosts'][host]


def node(host):
    response = clients.ironic(CONF).get('/v1/nodes/%s' % host)
    return response.json()


def power_off(host, fence=None, **more):
    return power_off_host.PowerOffHost(dict(resource_name=host, **more),
                                       fence=fence)


def test_a_partitioned_host_is_powered_off_once_confirmed(cloud, spec):
    url = cloud
    host, other = spec['hosts'][0]['name'], spec['hosts'][1]['name']
    event(url, host, 'partition')
    assert machine(url, host)['powered_on']
    fence = Fence()
    action = power_off(host, fence)
    action.execute()
    # Returned once Ironic read the power off, not when it accepted it.
    shown = node(host)
    assert (shown['power_state'], shown['target_power_state'],
            shown['last_error']) == ('power off', None, None)
    assert not machine(url, host)['powered_on']
    assert fence.passed == 1
    action.post_condition()
    assert action.recover(None) == base.DONE
    assert power_off(other).recover(None) == base.NOT_DONE
    with pytest.raises(base.ActionError, match='is not powered off'):
        power_off(other).post_condition()
    assert power_off_host.PowerOffHost.resources(
        {'resource_name': host}) == {(holds.COMPUTE_NODE, host)}


def test_a_host_already_off_is_done_without_a_power_request(cloud, spec):
    url = cloud
    host = spec['hosts'][0]['name']
    event(url, host, 'fail')
    # Were it asked, Ironic would refuse.
    faults(url, api_failures=[{'method': 'PUT', 'path': POWER_PATH,
                               'status': 500}])
    fence = Fence()
    power_off(host, fence).execute()
    assert fence.passed == 0
    assert node(host)['updated_at'] is None


def test_a_node_given_by_uuid_is_powered_off(cloud, spec):
    url = cloud
    host = spec['hosts'][1]['name']
    uuid = node(host)['uuid']
    action = power_off(host, node=uuid)
    action.execute()
    action.post_condition()
    assert not machine(url, host)['powered_on']


def test_a_fenced_action_asks_ironic_nothing(cloud, spec):
    url = cloud
    host = spec['hosts'][0]['name']
    fence = Fence()
    fence.shut = True
    with pytest.raises(fencing.Fenced):
        power_off(host, fence).execute()
    assert machine(url, host)['powered_on']
    assert node(host)['target_power_state'] is None


def test_a_locked_node_is_asked_again(cloud, spec):
    url = cloud
    host = spec['hosts'][0]['name']
    faults(url, api_failures=[{'method': 'PUT', 'path': POWER_PATH,
                               'status': 409, 'count': 2}])
    fence = Fence()
    power_off(host, fence).execute()
    assert fence.passed == 3
    assert not machine(url, host)['powered_on']


def test_a_node_locked_for_too_long_says_what_ironic_said(tmp_path, spec):
    with services.simulator(tmp_path, spec) as url, ironic_of_this_process(
            url, power_timeout=1):
        host = spec['hosts'][0]['name']
        faults(url, api_failures=[{'method': 'PUT', 'path': POWER_PATH,
                                   'status': 409}])
        with pytest.raises(base.ActionError) as caught:
            power_off(host).execute()
        assert 'not confirmed powered off within 1 s' in str(caught.value)
        assert 'Injected failure (simulator fault API) (HTTP 409)' in str(
            caught.value)
        assert machine(url, host)['powered_on']


def test_ironic_refusing_the_request_fails_at_once(cloud, spec):
    url = cloud
    host = spec['hosts'][0]['name']
    faults(url, api_failures=[{'method': 'PUT', 'path': POWER_PATH,
                               'status': 400, 'count': 1}])
    with pytest.raises(base.ActionError,
                       match=r'Ironic refused to power off node .* \(HTTP '
                             r'400\).*must not be evacuated'):
        power_off(host).execute()
    assert machine(url, host)['powered_on']


def test_an_unreachable_bmc_fails_with_ironics_last_error(cloud, spec):
    url = cloud
    host = spec['hosts'][0]['name']
    event(url, host, 'partition')
    faults(url, bmc_unreachable=[host])
    action = power_off(host)
    with pytest.raises(base.ActionError) as caught:
        action.execute()
    message = str(caught.value)
    assert ("Ironic could not power it off: Failed to change power state "
            "to 'power off': IPMI call failed: power status.") in message
    assert 'must not be evacuated' in message
    assert 'openstack baremetal node validate %s' % host in message
    assert machine(url, host)['powered_on']
    assert action.recover(None) == base.NOT_DONE


def test_an_unknown_node_says_how_to_map_it(cloud, spec):
    host = spec['hosts'][0]['name']
    with pytest.raises(base.ActionError,
                       match='Ironic has no node named no-such-host: name '
                             'the compute host\'s node after it'):
        power_off('no-such-host').execute()
    missing = '0c3e3a51-0000-4000-8000-000000000000'
    with pytest.raises(base.ActionError,
                       match='Ironic has no node %s \\(the node given for '
                             'compute host %s\\)' % (missing, host)):
        power_off(host, node=missing).execute()


def test_recover_waits_for_a_power_action_under_way(cloud, spec):
    url = cloud
    host = spec['hosts'][0]['name']
    # The request a dead applier sent just before it died.
    clients.ironic(CONF).put('/v1/nodes/%s/states/power' % host,
                             json={'target': 'power off'})
    assert node(host)['target_power_state'] == 'power off'
    assert power_off(host).recover(None) == base.DONE
    assert not machine(url, host)['powered_on']


def test_the_client_finds_ironic_in_the_catalog_at_its_version(tmp_path,
                                                               spec):
    with services.simulator(tmp_path, spec) as url:
        config = fixtures.write_config(tmp_path / 'ironic.conf', {
            'ironic': {'auth_type': 'password',
                       'auth_url': url + '/identity/v3',
                       'username': 'admin', 'password': 'admin',
                       'project_name': 'admin',
                       'user_domain_name': 'Default',
                       'project_domain_name': 'Default'}})
        conf = cfg.ConfigOpts()
        clients_conf.register_opts(conf)
        conf(['--config-file', str(config)])
        assert clients.configured(conf, clients.IRONIC_GROUP) is None
        host = spec['hosts'][0]['name']
        response = clients.ironic(conf).get('/v1/nodes/%s' % host)
        assert response.json()['name'] == host
        assert response.headers['X-OpenStack-Ironic-API-Version'] == (
            clients.IRONIC_API_VERSION)
