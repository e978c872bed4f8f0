"""The stop action against the simulator's Compute API (novaclient,
auth_type none): it stops a running server and waits until Nova shows it
SHUTOFF; it is skipped for a server gone or stopped already; its revert
starts the server again; after its applier died it is done once the
server is stopped; Nova's refusal fails it, saying why."""

import pytest

from tests.functional.cloud import nova_of_this_process_on
from tests.helpers.actions import status
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import stop
from watcher_ha.simulator import scenario

RUNNING, STOPPED = 'running', 'stopped'


@pytest.fixture(scope='module')
def cloud(conf, tmp_path_factory):
    spec = scenario.generate(hosts=2, servers=2, seed=4)
    for server, (name, state) in zip(spec['servers'], (
            (RUNNING, 'active'), (STOPPED, 'stopped'))):
        server.update(name=name, state=state)
    with nova_of_this_process_on(tmp_path_factory.mktemp('sim'),
                                 spec) as found:
        yield found


def test_a_running_server_is_stopped_and_started_again_on_revert(cloud):
    client, servers = cloud
    action = stop.Stop({'resource_id': servers[RUNNING]})
    assert action.recover(None) == base.NOT_DONE
    action.pre_condition()
    action.execute()
    action.post_condition()
    assert status(client, servers[RUNNING]) == 'SHUTOFF'
    assert action.recover(None) == base.DONE
    action.revert()
    assert status(client, servers[RUNNING]) == 'ACTIVE'


@pytest.mark.parametrize('which,why', [
    (STOPPED, 'is stopped already'),
    ('9d5e3c55-0000-4000-8000-000000000000', 'does not exist any more'),
])
def test_nothing_to_stop_is_skipped(cloud, which, why):
    _client, servers = cloud
    with pytest.raises(base.ActionSkipped, match=why):
        stop.Stop({'resource_id': servers.get(which, which)}).pre_condition()


def test_a_locked_server_fails_the_action_saying_why(cloud):
    client, servers = cloud
    client.servers.lock(servers[RUNNING])
    try:
        with pytest.raises(base.ActionError,
                           match='Nova refused to stop server .*locked'):
            stop.Stop({'resource_id': servers[RUNNING]}).execute()
    finally:
        client.servers.unlock(servers[RUNNING])
    assert status(client, servers[RUNNING]) == 'ACTIVE'


def test_its_parameters_are_watchers():
    stop.Stop.validate({'resource_id': '9d5e3c55-0000-4000-8000-000000000000'})
    for bad in ({}, {'resource_id': 'vm-1'},
                {'resource_id': '9d5e3c55-0000-4000-8000-000000000000',
                 'force': True}):
        with pytest.raises(ValueError, match='invalid input_parameters'):
            stop.Stop.validate(bad)
