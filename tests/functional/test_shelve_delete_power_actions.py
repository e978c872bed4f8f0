"""shelve, delete and change_node_power_state against the simulator's
Compute and Bare Metal APIs (auth_type none, [nova] and [ironic] of this
process): each does its work through its fence and returns once the
cloud shows it done; each is skipped when nothing is left to do; each
fails, saying why, when the cloud refuses (injected faults, a locked
server, an unreachable BMC); shelve and change_node_power_state are
reverted; recover() answers from what the cloud shows, after waiting for
what a dead applier left under way. Their take-over after a SIGKILL of
the applier is test_action_takeover.py."""

import pytest
import requests

from tests.functional import cloud as cloud_mod
from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.fixtures import wait_for
from tests.helpers.fence import Fence
from tests.helpers.actions import run
from tests.helpers.actions import status
from watcher_ha.applier import fencing
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import change_node_power_state as cnps
from watcher_ha.applier.actions import delete
from watcher_ha.applier.actions import shelve
from watcher_ha.cloud import clients
from watcher_ha.conf import CONF
from watcher_ha.simulator import scenario

GONE = '9d5e3c55-0000-4000-8000-000000000000'
BUSY, EMPTY = 'compute-0000', 'compute-0001'
NAMES = ('shelve-running', 'shelve-stopped', 'shelve-locked', 'delete-one',
         'delete-locked', 'delete-failing')


@pytest.fixture(scope='module')
def cloud(conf, tmp_path_factory):
    """The simulator (a shelve's upload takes 1 s, a BMC 0.5 s), this
    process pointed at it; a novaclient and the servers by name. Every
    server is on BUSY: EMPTY, disabled in Nova, holds none."""
    spec = scenario.generate(hosts=2, servers=len(NAMES), seed=4)
    spec.update(shelve_seconds=1, power_seconds=0.5, boot_seconds=1)
    for server, name in zip(spec['servers'], NAMES):
        server.update(name=name, host=BUSY, state=(
            'stopped' if name == 'shelve-stopped' else 'active'))
    with services.simulator(tmp_path_factory.mktemp('sim'), spec) as url, \
            cloud_mod.overridden((
                ('auth_type', 'none', 'nova'),
                ('endpoint_override', url + '/compute/v2.1', 'nova'),
                ('auth_type', 'none', 'ironic'),
                ('endpoint_override', url + '/baremetal', 'ironic'),
                ('poll_interval', 0.1, 'watcher_applier'),
                ('shelve_timeout', 20, 'watcher_applier'),
                ('delete_timeout', 20, 'watcher_applier'),
                ('change_node_power_state_timeout', 10,
                 'watcher_applier'))):
        client = nova(url)
        # As before a power-off: nothing is scheduled to EMPTY (an
        # unshelve would be).
        [service] = client.services.list(host=EMPTY)
        client.services.disable(service.id)
        yield url, client, {s.name: s.id for s in client.servers.list()}


def faults(url, **spec):
    requests.put(url + '/simulator/faults', json=spec,
                 timeout=10).raise_for_status()


# shelve.

def test_a_server_is_shelved_and_unshelved_on_revert(cloud):
    _url, client, servers = cloud
    uuid = servers['shelve-running']
    fence = Fence()
    action = shelve.Shelve({'resource_id': uuid}, fence=fence)
    assert action.recover(None) == base.NOT_DONE
    run(action)
    assert status(client, uuid) == 'SHELVED_OFFLOADED'
    assert fence.passed == 1
    assert action.recover(None) == base.DONE
    with pytest.raises(base.ActionSkipped, match='SHELVED_OFFLOADED '
                                                 'already'):
        shelve.Shelve({'resource_id': uuid}).pre_condition()
    action.revert()
    assert status(client, uuid) == 'ACTIVE'
    assert fence.passed == 2


def test_a_shelve_under_way_is_waited_for_and_counts(cloud):
    """The request of a dead applier (or of its own earlier run) is at
    Nova: recover() waits for its end; a second shelve, refused by Nova
    while the first runs, counts as done."""
    _url, client, servers = cloud
    uuid = servers['shelve-stopped']
    client.servers.shelve(uuid)
    assert client.servers.get(uuid).status == 'SHUTOFF'     # uploading
    action = shelve.Shelve({'resource_id': uuid})
    action.execute()
    assert status(client, uuid) == 'SHELVED_OFFLOADED'
    client.servers.unshelve(uuid)
    wait_for(lambda: status(client, uuid) == 'ACTIVE', 10, 'unshelved')
    client.servers.shelve(uuid)
    assert shelve.Shelve({'resource_id': uuid}).recover(None) == base.DONE


def test_a_shelve_nova_refuses_fails_saying_why(cloud):
    url, client, servers = cloud
    uuid = servers['shelve-locked']
    client.servers.lock(uuid)
    try:
        with pytest.raises(base.ActionError,
                           match='Nova refused to shelve server .*locked'):
            run(shelve.Shelve({'resource_id': uuid}))
    finally:
        client.servers.unlock(uuid)
    faults(url, api_failures=[{'method': 'POST', 'status': 500, 'count': 1,
                               'path': '/servers/%s/action' % uuid}])
    with pytest.raises(base.ActionError, match='Nova refused to shelve'):
        run(shelve.Shelve({'resource_id': uuid}))
    assert status(client, uuid) == 'ACTIVE'


def test_a_fenced_shelve_asks_nova_nothing(cloud):
    _url, client, servers = cloud
    uuid = servers['shelve-locked']
    fence = Fence()
    fence.shut = True
    with pytest.raises(fencing.Fenced):
        shelve.Shelve({'resource_id': uuid}, fence=fence).execute()
    assert status(client, uuid) == 'ACTIVE'


def test_nothing_to_shelve_is_skipped(cloud):
    with pytest.raises(base.ActionSkipped, match='does not exist any more'):
        shelve.Shelve({'resource_id': GONE}).pre_condition()


# delete.

def test_a_server_is_deleted_once_and_not_reverted(cloud):
    _url, client, servers = cloud
    uuid = servers['delete-one']
    fence = Fence()
    action = delete.Delete({'resource_id': uuid}, fence=fence)
    assert action.recover(None) == base.NOT_DONE
    run(action)
    assert fence.passed == 1
    assert uuid not in {s.id for s in client.servers.list()}
    assert action.recover(None) == base.DONE
    with pytest.raises(base.ActionSkipped, match='does not exist any more'):
        delete.Delete({'resource_id': uuid}).pre_condition()
    with pytest.raises(base.ActionError, match='irreversible'):
        action.revert()


def test_a_delete_nova_refuses_fails_saying_why(cloud):
    url, client, servers = cloud
    uuid = servers['delete-locked']
    client.servers.lock(uuid)
    try:
        with pytest.raises(base.ActionError,
                           match='Nova refused to delete server .*locked'):
            run(delete.Delete({'resource_id': uuid}))
    finally:
        client.servers.unlock(uuid)
    failing = servers['delete-failing']
    faults(url, api_failures=[{'method': 'DELETE', 'status': 500,
                               'count': 1, 'path': '/servers/%s$' % failing}])
    with pytest.raises(base.ActionError, match='Nova refused to delete'):
        run(delete.Delete({'resource_id': failing}))
    assert status(client, failing) == 'ACTIVE'
    assert status(client, uuid) == 'ACTIVE'


# change_node_power_state.

def node(name):
    return clients.ironic(CONF).get('/v1/nodes/%s' % name).json()


def power(name, state, fence=None):
    found = node(name)
    return cnps.ChangeNodePowerState(
        {'resource_id': found['uuid'], 'resource_name': name,
         'state': state}, fence=fence)


def test_an_empty_node_is_powered_off_and_on_again_on_revert(cloud):
    fence = Fence()
    action = power(EMPTY, 'off', fence)
    assert action.recover(None) == base.NOT_DONE
    run(action)
    assert (node(EMPTY)['power_state'], fence.passed) == ('power off', 1)
    assert action.recover(None) == base.DONE
    with pytest.raises(base.ActionSkipped, match='is power off already'):
        power(EMPTY, 'off').pre_condition()
    action.revert()
    assert (node(EMPTY)['power_state'], fence.passed) == ('power on', 2)


def test_a_node_whose_host_holds_servers_is_not_powered_off(cloud):
    with pytest.raises(base.ActionError, match='compute host %s of node .* '
                                               'holds' % BUSY):
        power(BUSY, 'off', Fence()).pre_condition()
    assert node(BUSY)['power_state'] == 'power on'
    with pytest.raises(base.ActionSkipped, match='is power on already'):
        power(BUSY, 'on').pre_condition()


def test_an_unreachable_bmc_fails_with_ironics_last_error(cloud):
    url, _client, _servers = cloud
    faults(url, bmc_unreachable=[EMPTY])
    try:
        action = power(EMPTY, 'off')
        with pytest.raises(base.ActionError,
                           match="Ironic could not power node .* off: Failed "
                                 "to change power state to 'power off'"):
            action.execute()
        assert action.recover(None) == base.NOT_DONE
    finally:
        faults(url, bmc_unreachable=[])
    assert node(EMPTY)['power_state'] == 'power on'


def test_recover_waits_for_a_power_action_under_way(cloud):
    # The request a dead applier sent just before it died.
    clients.ironic(CONF).put('/v1/nodes/%s/states/power' % EMPTY,
                             json={'target': 'power off'})
    assert node(EMPTY)['target_power_state'] == 'power off'
    assert power(EMPTY, 'off').recover(None) == base.DONE
    assert power(EMPTY, 'on').recover(None) == base.NOT_DONE
    run(power(EMPTY, 'on'))
    assert node(EMPTY)['power_state'] == 'power on'
