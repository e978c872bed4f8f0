"""The actions of a VM and a PROCESS recovery against the simulator's
Compute API (novaclient, auth_type none): restart_server stops a server
that is not stopped and starts it, every call through its fence, and
leaves the servers Masakari leaves; set_host_maintenance puts the host on
maintenance in its segment."""

import pytest

from tests.functional.cloud import nova_of_this_process_on
from tests.helpers.actions import run
from tests.helpers.actions import status
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import restart_server
from watcher_ha.applier.actions import set_host_maintenance
from watcher_ha.common import context as watcher_context
from watcher_ha.db import failover_segments
from watcher_ha.db import query
from watcher_ha.simulator import scenario

ACTIVE, STOPPED, PAUSED, PLAIN = 'ha-active', 'ha-stopped', 'ha-paused', \
    'plain'


@pytest.fixture(scope='module')
def cloud(conf, tmp_path_factory):
    """An admin novaclient on the simulator ([nova] of this process
    pointed at it), and its servers by name."""
    spec = scenario.generate(hosts=2, servers=4, seed=4)
    for server, (name, state) in zip(spec['servers'], (
            (ACTIVE, 'active'), (STOPPED, 'stopped'),
            (PAUSED, 'paused'), (PLAIN, 'active'))):
        server.update(name=name, state=state, metadata=(
            {} if name == PLAIN else {'HA_Enabled': 'True'}))
    with nova_of_this_process_on(tmp_path_factory.mktemp('sim'),
                                 spec) as found:
        yield found


def restart(server, fence=None, **parameters):
    return restart_server.RestartServer(
        dict({'resource_id': server}, **parameters), fence=fence)


@pytest.mark.parametrize('name, calls', [
    # Stopped, then started: Nova's record of a dead guest made true.
    (ACTIVE, 2),
    # Started only.
    (STOPPED, 1),
])
def test_a_failed_server_is_started_again_through_its_fence(
        cloud, name, calls):
    client, servers = cloud
    passed = []
    run(restart(servers[name], fence=lambda: passed.append(1)))
    assert status(client, servers[name]) == 'ACTIVE'
    assert len(passed) == calls


def test_a_fence_that_refuses_stops_it_before_nova_is_called(cloud):
    client, servers = cloud

    def refuse():
        raise RuntimeError('fenced')
    if status(client, servers[STOPPED]) != 'SHUTOFF':
        client.servers.stop(servers[STOPPED])
    with pytest.raises(RuntimeError, match='fenced'):
        restart(servers[STOPPED], fence=refuse).execute()
    assert status(client, servers[STOPPED]) == 'SHUTOFF'


@pytest.mark.parametrize('name, parameters, reason', [
    (PAUSED, {}, 'is paused: it is left as it is'),
    (PLAIN, {}, 'does not have the metadata HA_Enabled=True'),
])
def test_servers_masakari_leaves_are_left(cloud, name, parameters,
                                          reason):
    client, servers = cloud
    before = status(client, servers[name])
    with pytest.raises(base.ActionError, match=reason):
        restart(servers[name], fence=pytest.fail, **parameters
                ).pre_condition()
    assert status(client, servers[name]) == before


def test_process_all_instances_restarts_any_server(cloud):
    client, servers = cloud
    run(restart(servers[PLAIN], process_all_instances=True))
    assert status(client, servers[PLAIN]) == 'ACTIVE'


def test_a_locked_server_fails_the_action_saying_why(cloud):
    client, servers = cloud
    client.servers.lock(servers[ACTIVE])
    try:
        with pytest.raises(base.ActionError,
                           match='Nova refused to stop server'):
            run(restart(servers[ACTIVE]))
    finally:
        client.servers.unlock(servers[ACTIVE])
    assert status(client, servers[ACTIVE]) == 'ACTIVE'


def test_after_its_applier_died_it_may_run_again(cloud):
    _client, servers = cloud
    assert restart(servers[ACTIVE]).recover(None) == base.NOT_DONE


def test_the_host_goes_on_maintenance_in_its_segment(db):
    context = watcher_context.admin_context()
    segment = failover_segments.create_segment(context, {
        'name': 'seg', 'service_type': 'COMPUTE',
        'recovery_method': 'auto'})
    for name in ('compute-1', 'compute-2'):
        failover_segments.create_host(context, segment['uuid'], {
            'name': name, 'type': 'COMPUTE', 'control_attributes': ''})
    passed = []
    set_host_maintenance.SetHostMaintenance(
        {'notification_uuid': 'n-1', 'segment_uuid': segment['uuid'],
         'source_node': 'compute-1'}, context=context,
        fence=lambda: passed.append(1)).execute()
    hosts = failover_segments.list_hosts(context, segment['uuid'],
                                         query.Paging(), {})
    assert {h['name']: h['on_maintenance'] for h in hosts} == {
        'compute-1': True, 'compute-2': False}
    assert passed == [1]
