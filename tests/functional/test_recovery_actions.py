"""The actions of a host-failure recovery against the simulator's Compute
API (novaclient, auth_type none): force_host_down fences the failed host
in Nova; evacuate is refused until then, rebuilds each server on the
reserved host it is given, starts again a server that ran, records the
move as a vmove, and when its applier died, says what came of it."""

import pytest
import requests
import sqlalchemy as sa

from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.cloud import nova_of_this_process
from tests.helpers.failed_host import fail
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import evacuate
from watcher_ha.applier.actions import force_host_down
from watcher_ha.applier.actions import nova_base
from watcher_ha.applier.actions import settle_recovery
from watcher_ha.common import context as watcher_context
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.simulator import scenario

NOTIFICATION = '5b1f3c55-0000-4000-8000-000000000001'


@pytest.fixture
def cloud(tmp_path, db):
    """The simulator's URL and an admin novaclient, [nova] of this
    process pointed at it; three hosts, the servers on the first two."""
    spec = scenario.generate(hosts=3, servers=6, seed=4)
    spare = spec['hosts'][2]['name']
    for server in spec['servers']:
        if server['host'] == spare:
            server['host'] = spec['hosts'][0]['name']
    with services.simulator(tmp_path, spec) as url, nova_of_this_process(url):
        yield url, nova(url), spec


def servers_on(client, host):
    return sorted((s for s in client.servers.list()
                   if nova_base.host_of(s) == host), key=lambda s: s.id)


def evacuation(server, source, destination=None):
    return evacuate.Evacuate({
        'resource_id': server.id, 'resource_name': server.name,
        'source_node': source, 'destination_node': destination,
        'notification_uuid': NOTIFICATION},
        context=watcher_context.admin_context())


def fence(host):
    return force_host_down.ForceHostDown({'resource_name': host})


def vmove_of(server):
    with engine.get_engine().connect() as conn:
        return conn.execute(sa.select(models.VMove).where(
            models.VMove.instance_uuid == server.id)).mappings().first()


def test_fencing_forces_the_failed_host_down_and_is_idempotent(cloud):
    _url, client, spec = cloud
    host = spec['hosts'][0]['name']
    action = fence(host)
    action.execute()
    action.post_condition()
    [service] = client.services.list(host=host, binary='nova-compute')
    assert (service.status, service.forced_down, service.state) == (
        'disabled', True, 'down')
    assert service.disabled_reason == force_host_down.DISABLED_REASON
    action.execute()        # again: nothing changes, nothing fails
    assert fence(host).recover(None) == base.DONE
    assert fence(spec['hosts'][1]['name']).recover(None) == base.NOT_DONE


def test_a_host_nova_still_counts_up_is_fenced_without_waiting(
        tmp_path, db):
    """A host that lost its power a moment ago: Nova counts its service
    up for service_down_time, and a status written then waits for its
    dead nova-compute to answer nova-api's call (rpc_response_timeout).
    Forced down first, the service is down: disabling it makes no call."""
    spec = scenario.generate(hosts=2, servers=2, seed=4)
    spec.update(service_down_time=60, rpc_response_timeout=5)
    host = spec['hosts'][0]['name']
    with services.simulator(tmp_path, spec) as url, nova_of_this_process(url):
        fail(url, host)
        fence(host).execute()
        state = requests.get(url + '/simulator/state', timeout=10).json()
    assert state['rpc_timeouts'] == []
    assert (state['hosts'][host]['status'],
            state['hosts'][host]['forced_down']) == ('disabled', True)


def test_nova_refuses_to_evacuate_from_a_host_still_up(cloud):
    _url, client, spec = cloud
    source = spec['hosts'][0]['name']
    server = servers_on(client, source)[0]
    with pytest.raises(base.ActionError, match='Nova refused to evacuate'):
        action = evacuation(server, source)
        action.pre_condition()
        action.execute()
    assert nova_base.host_of(client.servers.get(server.id)) == source
    assert vmove_of(server)['status'] == 'failed'


def test_a_fenced_hosts_servers_come_back_on_the_reserved_host(cloud):
    url, client, spec = cloud
    source, spare = spec['hosts'][0]['name'], spec['hosts'][2]['name']
    running, stopped = servers_on(client, source)[:2]
    for server, status in ((running, 'ACTIVE'), (stopped, 'SHUTOFF')):
        if server.status != status:
            (server.start if status == 'ACTIVE' else server.stop)()
    fail(url, source)
    fence(source).execute()
    for server in (running, stopped):
        action = evacuation(client.servers.get(server.id), source, spare)
        action.pre_condition()
        action.execute()
        action.post_condition()
    back = client.servers.get(running.id)
    assert (nova_base.host_of(back), back.status) == (spare, 'ACTIVE')
    still_stopped = client.servers.get(stopped.id)
    assert (nova_base.host_of(still_stopped), still_stopped.status) == (
        spare, 'SHUTOFF')
    move = vmove_of(running)
    assert (move['status'], move['source_host'], move['dest_host'],
            move['type']) == ('succeeded', source, spare, 'evacuation')
    assert move['start_time'] <= move['end_time']
    # Run again (a take-over): nothing moves twice.
    again = evacuation(back, source, spare)
    again.pre_condition()
    again.execute()
    assert again.recover(None) == base.DONE
    evacuations = client.migrations.list(instance_uuid=running.id,
                                         migration_type='evacuation')
    assert len(evacuations) == 1


def test_a_server_not_yet_evacuated_may_be_evacuated_again(cloud):
    url, client, spec = cloud
    source = spec['hosts'][0]['name']
    fail(url, source)
    fence(source).execute()
    server = servers_on(client, source)[0]
    assert evacuation(server, source).recover(None) == base.NOT_DONE


def test_settling_finds_the_servers_the_plan_did_not_know(cloud):
    """One server evacuated as planned; another, HA_Enabled, that the
    plan never had (its data model missed it), still on the failed host:
    the recovery is not settled as done, and says which."""
    url, client, spec = cloud
    source, spare = spec['hosts'][0]['name'], spec['hosts'][2]['name']
    there = servers_on(client, source)
    missed = next(s for s in there if s.metadata.get('HA_Enabled'))
    planned = next(s for s in there if s.id != missed.id)
    # And one the plan leaves alone on purpose (evacuated too often).
    looping = next(s for s in there if s.id not in (missed.id, planned.id))
    fail(url, source)
    fence(source).execute()
    action = evacuation(planned, source, spare)
    action.pre_condition()
    action.execute()
    settle = settle_recovery.SettleRecovery({
        'notification_uuid': NOTIFICATION,
        'segment_uuid': 'no-such-segment', 'source_node': source,
        'evacuate_all_instances': False,
        'left_alone': {looping.id: 'evacuated 3 time(s) lately'}},
        context=watcher_context.admin_context())
    with pytest.raises(base.ActionError) as failed:
        settle.execute()
    assert missed.id in str(failed.value)
    assert looping.id in str(failed.value)
    assert planned.id not in str(failed.value)
    move = vmove_of(looping)
    assert (move['status'], move['message']) == (
        'failed', 'evacuated 3 time(s) lately')


def fenced_with_an_active_server(cloud, prepare=None):
    """The first host failed and fenced, once ``prepare(server)`` (if
    given) has put one of its active servers in the state the test
    needs: (client, that host, the spare host, the server)."""
    url, client, spec = cloud
    source, spare = spec['hosts'][0]['name'], spec['hosts'][2]['name']
    server = next(s for s in servers_on(client, source)
                  if s.status == 'ACTIVE')
    if prepare is not None:
        prepare(server)
    fail(url, source)
    fence(source).execute()
    return client, source, spare, server


class Died(BaseException):
    """The applier dies (no except clause of the action catches it)."""


def taken_over_after_death_in(step, client, server, source, spare,
                              monkeypatch):
    """Evacuate ``server`` from ``source`` to ``spare``, its applier dying
    as the action enters ``step`` (one of its methods); then the applier
    taking over: a new action, whose recover() finds it not done, run
    again. Returns the server as the death left it."""
    dying = evacuation(client.servers.get(server.id), source, spare)

    def die(_server):
        raise Died()
    monkeypatch.setattr(dying, step, die)
    dying.pre_condition()
    with pytest.raises(Died):
        dying.execute()
    left = client.servers.get(server.id)
    again = evacuation(left, source, spare)
    assert again.recover(None) == base.NOT_DONE
    again.pre_condition()
    again.execute()
    return left


def test_a_server_rebuilt_but_not_started_when_its_applier_died_is_started(
        cloud, monkeypatch):
    """Nova (2.95+) leaves an evacuated server stopped; the action starts
    one that ran. Its applier dies between the two: the applier taking
    over finds the action not done, and running it again starts the
    server, without evacuating it again."""
    client, source, spare, server = fenced_with_an_active_server(cloud)
    rebuilt = taken_over_after_death_in('_come_back', client, server,
                                        source, spare, monkeypatch)
    assert (nova_base.host_of(rebuilt), rebuilt.status) == (spare,
                                                            'SHUTOFF')
    back = client.servers.get(server.id)
    assert (nova_base.host_of(back), back.status) == (spare, 'ACTIVE')
    assert vmove_of(back)['status'] == 'succeeded'
    assert evacuation(back, source, spare).recover(None) == base.DONE
    assert len(client.migrations.list(instance_uuid=server.id,
                                      migration_type='evacuation')) == 1


def test_a_paused_server_is_reset_evacuated_and_left_stopped(cloud):
    """Nova evacuates no paused server: reset to error first, as Masakari
    does; Nova starts a server rebuilt from error, and the action stops
    it, as Masakari leaves a paused one."""
    client, source, spare, server = fenced_with_an_active_server(
        cloud, lambda server: server.pause())
    action = evacuation(client.servers.get(server.id), source, spare)
    action.pre_condition()
    action.execute()
    back = client.servers.get(server.id)
    assert (nova_base.host_of(back), back.status) == (spare, 'SHUTOFF')
    move = vmove_of(back)
    assert (move['status'], move['restore_state']) == ('succeeded',
                                                      'stopped')
    assert evacuation(back, source, spare).recover(None) == base.DONE


def test_a_server_in_error_ends_in_error_though_its_applier_died(
        cloud, monkeypatch):
    """A server in error comes back stopped and in error (Nova's rebuild
    starts it; Masakari stops it and resets it). The applier dies before
    the reset: the one taking over finds the action not done, and
    running it again resets the server, without evacuating it again."""
    client, source, spare, server = fenced_with_an_active_server(
        cloud, lambda server: server.reset_state('error'))
    stopped = taken_over_after_death_in('_reset_to_error', client, server,
                                        source, spare, monkeypatch)
    assert (nova_base.host_of(stopped), stopped.status) == (spare,
                                                            'SHUTOFF')
    back = client.servers.get(server.id)
    assert (nova_base.host_of(back), back.status,
            getattr(back, 'OS-EXT-STS:power_state')) == (spare, 'ERROR', 4)
    assert vmove_of(back)['restore_state'] == 'error'
    assert evacuation(back, source, spare).recover(None) == base.DONE
    assert len(client.migrations.list(instance_uuid=server.id,
                                      migration_type='evacuation')) == 1
