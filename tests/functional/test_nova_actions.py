"""The Nova actions against the simulator's Compute API (novaclient,
auth_type none). change_nova_service_state: a revert puts the service
back as it was, the operator's reason included. migrate: a stopped
server migrates cold, a paused one live; a
server Nova confirms by itself before a poll sees VERIFY_RESIZE has
still arrived; reverting a server left waiting for its confirmation
reverts the resize; a state Nova would refuse is named before anything
is asked of Nova; a live migration out of time is aborted in Nova."""

import threading

import pytest

from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.cloud import nova_of_this_process
from tests.functional.fixtures import wait_for
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import change_nova_service_state
from watcher_ha.applier.actions import migrate
from watcher_ha.applier.actions import nova_base
from watcher_ha.simulator import scenario


@pytest.fixture
def cloud(tmp_path, request):
    """The simulator's URL and an admin novaclient, with [nova] of this
    process pointed at it; a test's indirect parameter sets the
    migrations' speed (MB/s)."""
    spec = scenario.generate(hosts=3, servers=6, seed=2)
    # By default a cold migration of the largest flavor takes about a
    # second.
    spec['bandwidth_mb_per_s'] = getattr(request, 'param', 20000)
    with services.simulator(tmp_path, spec) as url, nova_of_this_process(url):
        yield url, nova(url)


def some_server(client):
    return sorted(client.servers.list(), key=lambda s: s.id)[0]


def action(server, kind, destination=None):
    return migrate.Migrate({
        'resource_id': server.id, 'resource_name': server.name,
        'migration_type': kind, 'source_node': nova_base.host_of(server),
        'destination_node': destination})


def settled(client, uuid):
    server = client.servers.get(uuid)
    return server if nova_base.task_of(server) is None else None


def test_a_stopped_server_moves_cold_and_a_paused_one_live(cloud):
    _url, client = cloud
    server = some_server(client)
    source = nova_base.host_of(server)
    server.stop()
    cold = action(server, 'cold')
    cold.pre_condition()
    cold.execute()
    moved = client.servers.get(server.id)
    assert nova_base.host_of(moved) != source
    assert moved.status == 'SHUTOFF'

    moved.start()
    client.servers.pause(moved)
    live = action(client.servers.get(server.id), 'live')
    live.pre_condition()
    live.execute()
    assert nova_base.host_of(client.servers.get(server.id)) not in (
        nova_base.host_of(moved), None)


def test_a_state_nova_refuses_is_named_first(cloud):
    _url, client = cloud
    server = some_server(client)
    client.servers.pause(server)
    with pytest.raises(base.ActionError,
                       match='is PAUSED: Nova cold-migrates only ACTIVE or '
                             'SHUTOFF servers'):
        action(client.servers.get(server.id), 'cold').pre_condition()


def test_a_resize_nova_confirmed_by_itself_has_arrived(cloud, config):
    """Nova's resize_confirm_window, played by a thread that confirms
    the moment the server waits for it, well before the action's next
    poll."""
    _url, client = cloud
    config.config(poll_interval=3, group='watcher_applier')
    server = some_server(client)
    source = nova_base.host_of(server)
    stop = threading.Event()

    def confirm_at_once():
        while not stop.is_set():
            found = client.servers.get(server.id)
            if found.status == 'VERIFY_RESIZE':
                found.confirm_resize()
                return
            stop.wait(0.02)
    confirmer = threading.Thread(target=confirm_at_once)
    confirmer.start()
    try:
        action(server, 'cold').execute()
    finally:
        stop.set()
        confirmer.join()
    moved = client.servers.get(server.id)
    assert nova_base.host_of(moved) != source
    assert moved.status == 'ACTIVE'


def test_reverting_a_server_left_in_verify_resize_reverts_the_resize(cloud):
    _url, client = cloud
    server = some_server(client)
    source = nova_base.host_of(server)
    server.migrate()
    wait_for(lambda: client.servers.get(server.id).status
             == 'VERIFY_RESIZE', 30, 'VERIFY_RESIZE')
    action(server, 'cold').revert()
    back = wait_for(lambda: settled(client, server.id), 30, 'settled')
    assert (nova_base.host_of(back), back.status) == (source, 'ACTIVE')


# 1 MB/s: a live migration takes many minutes.
@pytest.mark.parametrize('cloud', [1], indirect=True)
def test_a_live_migration_out_of_time_is_aborted_in_nova(cloud, config):
    _url, client = cloud
    config.config(migration_timeout=1, group='watcher_applier')
    server = some_server(client)
    source = nova_base.host_of(server)
    with pytest.raises(base.ActionError,
                       match='did not happen within 1 s; aborted it in '
                             'Nova .*stays on %s' % source):
        action(server, 'live').execute()
    back = wait_for(lambda: settled(client, server.id), 10, 'settled')
    assert (nova_base.host_of(back), back.status) == (source, 'ACTIVE')
    assert client.server_migrations.list(server) == []
    [migration] = [m for m in client.migrations.list(
        instance_uuid=server.id) if m.migration_type == 'live-migration']
    assert migration.status == 'cancelled'


def test_a_revert_puts_the_service_back_as_it_was(cloud):
    _url, client = cloud
    [service] = client.services.list(host='compute-0001',
                                     binary='nova-compute')
    client.services.disable_log_reason(service.id, 'disk replacement')

    def run(state, reason=None):
        change = change_nova_service_state.ChangeNovaServiceState({
            'resource_name': 'compute-0001', 'state': state,
            'disabled_reason': reason})
        change.pre_condition()
        change.execute()
        return change

    def now():
        [found] = client.services.list(host='compute-0001',
                                       binary='nova-compute')
        return found.status, found.disabled_reason
    # Disabling a service an operator had disabled, then reverting,
    # leaves it as the operator left it (the revert used to enable it).
    run('disabled', 'watcher_maintaining').revert()
    assert now() == ('disabled', 'disk replacement')
    enabling = run('enabled')
    assert now() == ('enabled', None)
    enabling.revert()
    assert now() == ('disabled', 'disk replacement')


def test_a_cold_migration_interrupted_in_verify_resize_is_confirmed(cloud):
    """Its applier was lost after Nova moved the server and before the
    confirmation. Nova never confirms by itself (resize_confirm_window is
    0 by default): recover() confirms it, and the action is done."""
    _url, client = cloud
    server = some_server(client)
    interrupted = action(server, 'cold')
    server.migrate()
    waiting = wait_for(lambda: client.servers.get(server.id).status
                       == 'VERIFY_RESIZE' and client.servers.get(server.id),
                       30, 'VERIFY_RESIZE')
    destination = nova_base.host_of(waiting)
    interrupted.input_parameters['destination_node'] = destination
    assert interrupted.recover(None) == base.DONE
    moved = client.servers.get(server.id)
    assert (nova_base.host_of(moved), moved.status) == (destination,
                                                        'ACTIVE')


def test_the_fence_comes_before_every_call_that_changes_the_cloud(cloud):
    """The action's calls that change something pass its fence first; a
    fence that refuses stops the call before it reaches Nova."""
    from watcher_ha.applier import fencing
    _url, client = cloud
    server = some_server(client)
    source = nova_base.host_of(server)
    passes = []

    def refuse():
        passes.append('fence')
        raise fencing.Fenced('taken over')
    moving = action(server, 'live')
    moving.fence = refuse
    moving.pre_condition()
    with pytest.raises(fencing.Fenced):
        moving.execute()
    assert passes == ['fence']
    assert client.migrations.list(instance_uuid=server.id) == []
    assert nova_base.host_of(client.servers.get(server.id)) == source
