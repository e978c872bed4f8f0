"""What host-failure recovery meets in the simulator, as in Nova: hosts
that lose power, crash or are cut off; evacuations that take time, with
Nova's checks, statuses, notifications, allocations and microversion
rules; forcing a service down and back up; and the record of every
evacuation that made a server run twice."""

import datetime
import threading
import time

import pytest
import webob

from tests.helpers.simulator_calls import microversion
from tests.helpers.simulator_calls import request
from tests.helpers.simulator_calls import until
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import simulator
from watcher_ha.simulator.nova import hosts

FLAVORS = [{'id': '1', 'name': 'small', 'vcpus': 1, 'ram': 1024, 'disk': 10},
           {'id': '2', 'name': 'big', 'vcpus': 2, 'ram': 30000, 'disk': 10}]


def make(clock=None, **settings):
    """Three hosts: compute-0 with vm-a (active), vm-b (stopped) and
    vm-big; compute-1 with vm-c; compute-2 empty. Fast timings; time
    told by ``clock`` (real when None)."""
    spec = {'flavors': FLAVORS,
            'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8,
                       'memory_mb': 32768, 'disk_gb': 500}
                      for i in range(3)],
            'servers': [
                {'name': 'vm-a', 'flavor': 'small', 'host': 'compute-0'},
                {'name': 'vm-b', 'flavor': 'small', 'host': 'compute-0',
                 'state': 'stopped'},
                {'name': 'vm-big', 'flavor': 'big', 'host': 'compute-0'},
                {'name': 'vm-c', 'flavor': 'small', 'host': 'compute-1'}],
            'evacuate_seconds': 0.1, 'power_seconds': 0.05,
            'boot_seconds': 0.05}
    spec.update(settings)
    return simulator.Simulator(spec, clock=clock)


@pytest.fixture
def sim():
    found = make(clock_mod.FakeClock())
    yield found
    found.stop()


class Recorder:
    def __init__(self):
        self.seen = []

    def emit(self, event_type, publisher, server=None, host=None, **extra):
        self.seen.append((event_type, publisher,
                          server.host if server else None,
                          server.vm_state if server else None))


def call(sim, method, path, body=None, version='2.96'):
    resp = request(sim, method, '/compute/v2.1' + path, body,
                   microversion('compute', version))
    return resp.status_int, (resp.json if resp.body else None)


def uuid_of(sim, name):
    return next(s.uuid for s in sim.cloud.servers.values() if s.name == name)


def evacuate(sim, name, version='2.96', **args):
    return call(sim, 'POST', '/servers/%s/action' % uuid_of(sim, name),
                {'evacuate': args}, version)


def force_down(sim, host, down=True):
    service = sim.cloud.hosts[host].service_id
    return call(sim, 'PUT', '/os-services/%s' % service,
                {'forced_down': down}, '2.53')


def show(sim, name):
    return call(sim, 'GET', '/servers/%s' % uuid_of(sim, name))[1]['server']


def migration_of(sim, name):
    [found] = [m for m in sim.cloud.migrations.values()
               if m.server_uuid == uuid_of(sim, name)
               and m.kind == 'evacuation']
    return found


def wait(sim, check, timeout=5):
    """Until ``check`` holds: on a fake clock, move the simulator's time
    on; on the real one, wait for it."""
    until(check, sim.clock.sleep, timeout)


def done(sim, name):
    wait(sim, lambda: migration_of(sim, name).status in (
        'done', 'error', 'failed'))
    return show(sim, name)


def host_of(server):
    return server['OS-EXT-SRV-ATTR:host']


# Host failures.

@pytest.mark.parametrize('fail,powered,guests', [
    (hosts.lose_power, False, False),
    (hosts.crash, True, False),
    (hosts.partition, True, True),
])
def test_three_ways_to_fail_look_alike_to_nova(sim, fail, powered, guests):
    fail(sim.cloud, 'compute-0')
    host = sim.cloud.hosts['compute-0']
    [service] = call(sim, 'GET', '/os-services?host=compute-0')[1][
        'services']
    assert (service['state'], host.reporting) == ('down', False)
    assert host.powered_on is powered
    vm_a = sim.cloud.servers[uuid_of(sim, 'vm-a')]
    assert hosts.guest_running(host, vm_a) is guests
    # Nova keeps what the host last reported.
    assert show(sim, 'vm-a')['status'] == 'ACTIVE'


def test_a_silent_service_is_up_for_service_down_time():
    clock = clock_mod.FakeClock()
    sim = make(clock, service_down_time=60)
    hosts.lose_power(sim.cloud, 'compute-0')
    assert sim.cloud.hosts['compute-0'].state == 'up'
    status, body = evacuate(sim, 'vm-a')
    assert status == 400
    assert 'still in use' in body['badRequest']['message']
    clock.advance(61)
    assert sim.cloud.hosts['compute-0'].state == 'down'
    assert evacuate(sim, 'vm-a')[0] == 200
    sim.stop()


def test_a_host_back_from_a_power_loss_stops_what_ran_there(sim):
    recorder = sim.cloud.events = Recorder()
    hosts.lose_power(sim.cloud, 'compute-0')
    hosts.recover(sim.cloud, 'compute-0')
    assert sim.cloud.hosts['compute-0'].reporting
    # The guests died with the power: Nova's power sync stops them.
    assert show(sim, 'vm-a')['status'] == 'SHUTOFF'
    assert show(sim, 'vm-a')['OS-EXT-STS:power_state'] == 4
    assert ('instance.power_off.end', 'nova-compute:compute-0',
            'compute-0', 'stopped') in recorder.seen


def test_a_healed_partition_restarts_nothing(sim):
    hosts.partition(sim.cloud, 'compute-0')
    hosts.recover(sim.cloud, 'compute-0')
    assert show(sim, 'vm-a')['status'] == 'ACTIVE'
    assert hosts.guest_running(sim.cloud.hosts['compute-0'],
                               sim.cloud.servers[uuid_of(sim, 'vm-a')])


@pytest.mark.parametrize('key,powered,running,partitioned', [
    ('fail_host', False, False, False),
    ('crash_host', True, False, False),
    ('partition_host', True, True, True),
])
def test_timeline_entries_fail_hosts(key, powered, running, partitioned):
    sim = make(clock_mod.FakeClock(),
               timeline=[{'at': 0, key: 'compute-1'},
                         {'at': 0.2, 'recover_host': 'compute-1'}])
    sim.start_timeline()
    host = sim.cloud.hosts['compute-1']
    try:
        wait(sim, lambda: not host.reporting)
        assert (host.powered_on, host.compute_running,
                host.partitioned) == (powered, running, partitioned)
        wait(sim, lambda: host.reporting)
    finally:
        sim.stop()


def test_the_admin_api_fails_and_recovers_hosts(sim):
    for event in ('fail', 'crash', 'partition', 'recover'):
        resp = webob.Request.blank('/simulator/hosts/compute-2/%s' % event,
                                   method='POST').get_response(sim)
        assert resp.status_int == 202, event
    assert sim.cloud.hosts['compute-2'].reporting
    resp = webob.Request.blank('/simulator/hosts/compute-2/explode',
                               method='POST').get_response(sim)
    assert resp.status_int == 404
    state = webob.Request.blank('/simulator/state').get_response(sim).json
    assert state['split_brain'] == []
    assert state['hosts']['compute-2']['powered_on'] is True


# Evacuation: Nova's checks.

def test_evacuate_is_refused_while_the_source_is_up(sim):
    status, body = evacuate(sim, 'vm-a')
    assert status == 400
    assert body['badRequest']['message'] == (
        'Compute service of compute-0 is still in use.')


def test_forcing_the_service_down_by_uuid_allows_evacuate(sim):
    status, body = force_down(sim, 'compute-0')
    assert status == 200
    assert body['service']['forced_down'] is True
    assert body['service']['state'] == 'down'
    # The host still runs: Nova only believes what it is told.
    assert sim.cloud.hosts['compute-0'].reporting
    assert evacuate(sim, 'vm-a') == (200, None)


@pytest.mark.parametrize('body,status,message', [
    ({'forced_down': 'yes'}, 200, None),
    ({}, 400, "No updates were requested. Fields 'status' or "
              "'forced_down' should be specified."),
    ({'forced_down': 'maybe'}, 400, None),
    ({'status': 'enabled', 'disabled_reason': 'x'}, 400,
     "Specifying 'disabled_reason' with status 'enabled' is invalid."),
])
def test_service_updates_by_uuid(sim, body, status, message):
    service = sim.cloud.hosts['compute-1'].service_id
    found, reply = call(sim, 'PUT', '/os-services/%s' % service, body,
                        '2.53')
    assert found == status
    if message:
        assert reply['badRequest']['message'] == message


def test_a_service_uuid_must_be_one(sim):
    assert call(sim, 'PUT', '/os-services/compute-1',
                {'forced_down': True}, '2.53')[0] == 400
    assert call(sim, 'PUT', '/os-services/%s' % (
        '00000000-0000-4000-8000-000000000000'), {'forced_down': True},
        '2.53')[0] == 404


def test_legacy_force_down_needs_2_11(sim):
    body = {'host': 'compute-1', 'binary': 'nova-compute',
            'forced_down': True}
    assert call(sim, 'PUT', '/os-services/force-down', body, '2.10')[0] \
        == 404
    status, reply = call(sim, 'PUT', '/os-services/force-down', body, '2.11')
    assert (status, reply['service']['forced_down']) == (200, True)


# A status written while Nova counts a dead service up (Nova's
# _update_compute_provider_status: nova-api calls the compute to sync the
# COMPUTE_STATUS_DISABLED trait, and nobody answers).

RPC_TIMEOUT = 0.5


def dead_but_counted_up():
    """compute-0 lost its power a moment ago: Nova still counts it up
    for service_down_time (60 s)."""
    sim = make(service_down_time=60, rpc_response_timeout=RPC_TIMEOUT)
    hosts.lose_power(sim.cloud, 'compute-0')
    assert sim.cloud.hosts['compute-0'].state == 'up'
    return sim


def put_service(sim, body, host='compute-0', version='2.53'):
    """PUT /os-services (by uuid from 2.53, by action before): (status,
    reply, seconds it took)."""
    if version == '2.53':
        path = '/os-services/%s' % sim.cloud.hosts[host].service_id
    else:
        action = ('force-down' if 'forced_down' in body else
                  'disable-log-reason' if body.get('status') == 'disabled'
                  else 'enable')
        path = '/os-services/' + action
        body = dict({k: v for k, v in body.items() if k != 'status'},
                    host=host, binary='nova-compute')
    started = time.monotonic()
    status, reply = call(sim, 'PUT', path, body, version)
    return status, reply, time.monotonic() - started


@pytest.mark.parametrize('version', ['2.53', '2.11'])
@pytest.mark.parametrize('status', ['disabled', 'enabled'])
def test_a_status_written_while_a_dead_service_counts_up_waits_for_rpc(
        version, status):
    sim = dead_but_counted_up()
    body = {'status': status}
    if status == 'disabled':
        body['disabled_reason'] = 'dead'
    found, reply, took = put_service(sim, body, version=version)
    # Saved first, then the call nobody answers: logged by Nova, and the
    # request answered as if all went well.
    assert found == 200, reply
    assert took >= RPC_TIMEOUT
    assert sim.cloud.hosts['compute-0'].status == status
    assert [(t['host'], t['method']) for t in sim.cloud.rpc_timeouts] == [
        ('compute-0', 'set_host_enabled')]
    sim.stop()


@pytest.mark.parametrize('steps', [
    # One request: forced down before the call is considered.
    [{'forced_down': True, 'status': 'disabled', 'disabled_reason': 'x'}],
    [{'forced_down': True}, {'status': 'disabled'}],
    [{'forced_down': True}, {'status': 'disabled'}, {'status': 'enabled'}],
])
def test_a_service_forced_down_first_is_written_at_once(steps):
    sim = dead_but_counted_up()
    for body in steps:
        assert put_service(sim, body)[0] == 200
    assert sim.cloud.rpc_timeouts == []
    assert sim.cloud.hosts['compute-0'].forced_down
    sim.stop()


def test_a_live_compute_answers_and_a_long_silent_one_is_not_called():
    sim = dead_but_counted_up()
    # compute-1 runs: its nova-compute answers at once.
    assert put_service(sim, {'status': 'disabled'}, host='compute-1')[0] \
        == 200
    # compute-0 silent for longer than service_down_time: down, no call.
    sim.cloud.hosts['compute-0'].silent_since -= datetime.timedelta(
        seconds=61)
    assert put_service(sim, {'status': 'disabled'})[0] == 200
    assert sim.cloud.rpc_timeouts == []
    sim.stop()


def test_other_requests_go_on_while_one_waits_for_a_compute():
    sim = make(service_down_time=60, rpc_response_timeout=5)
    hosts.crash(sim.cloud, 'compute-0')
    waiting = threading.Thread(target=put_service,
                               args=(sim, {'status': 'disabled'}))
    waiting.start()
    wait(sim, lambda: sim.cloud.rpc_timeouts)
    started = time.monotonic()
    assert call(sim, 'GET', '/os-services')[0] == 200
    assert put_service(sim, {'forced_down': True}, host='compute-1')[0] \
        == 200
    assert time.monotonic() - started < 5
    assert waiting.is_alive()
    waiting.join()
    sim.stop()


def test_the_rpc_timeout_is_novas_unless_the_scenario_says():
    assert make().cloud.rpc_response_timeout == 60
    assert make(rpc_response_timeout=2).cloud.rpc_response_timeout == 2


def test_evacuate_refuses_wrong_states(sim):
    call(sim, 'POST', '/servers/%s/action' % uuid_of(sim, 'vm-a'),
         {'pause': None})
    force_down(sim, 'compute-0')
    status, body = evacuate(sim, 'vm-a')
    assert status == 409
    assert body['conflictingRequest']['message'] == (
        "Cannot 'evacuate' instance %s while it is in vm_state paused"
        % uuid_of(sim, 'vm-a'))
    assert evacuate(sim, 'vm-b')[0] == 200
    status, body = evacuate(sim, 'vm-b')
    assert status == 409
    assert 'task_state rebuilding' in body['conflictingRequest']['message']


def action(sim, name, body, version='2.96'):
    return call(sim, 'POST', '/servers/%s/action' % uuid_of(sim, name),
                body, version)


@pytest.mark.parametrize('make_it, vm_state, status, power_state', [
    ({'pause': None}, 'paused', 'PAUSED', 3),
    ({'suspend': None}, 'suspended', 'SUSPENDED', 7),
    ({'migrate': {'host': 'compute-2'}}, 'resized', 'VERIFY_RESIZE', 1),
])
def test_a_server_nova_will_not_evacuate_is_reset_first(
        sim, make_it, vm_state, status, power_state):
    """As Masakari does: os-resetState to error, then evacuate; the
    rebuild starts a server that was in error, even at 2.95."""
    name = 'vm-c'       # on compute-1
    assert action(sim, name, make_it)[0] == 202
    wait(sim, lambda: show(sim, name)['status'] == status)
    host = host_of(show(sim, name))
    hosts.lose_power(sim.cloud, host)
    force_down(sim, host)
    found, body = evacuate(sim, name)
    assert found == 409
    assert body['conflictingRequest']['message'].endswith(
        'vm_state %s' % vm_state)
    assert action(sim, name, {'os-resetState': {'state': 'error'}}) == (
        202, None)
    server = show(sim, name)
    # The power state is the guest's: a reset leaves it.
    assert (server['status'], server['OS-EXT-STS:task_state'],
            server['OS-EXT-STS:power_state']) == ('ERROR', None,
                                                  power_state)
    assert evacuate(sim, name)[0] == 200
    server = done(sim, name)
    assert (server['status'], server['OS-EXT-STS:power_state']) == (
        'ACTIVE', 1)
    assert host_of(server) != host


def test_suspend_and_resume(sim):
    assert action(sim, 'vm-a', {'suspend': None})[0] == 202
    assert show(sim, 'vm-a')['status'] == 'SUSPENDED'
    assert action(sim, 'vm-a', {'suspend': None})[0] == 409
    assert action(sim, 'vm-a', {'resume': None})[0] == 202
    server = show(sim, 'vm-a')
    assert (server['status'], server['OS-EXT-STS:power_state']) == (
        'ACTIVE', 1)


@pytest.mark.parametrize('body', [{'state': 'stopped'}, {},
                                  {'state': 'error', 'force': True}])
def test_reset_state_takes_active_or_error_only(sim, body):
    status, reply = action(sim, 'vm-a', {'os-resetState': body})
    assert status == 400, reply
    assert show(sim, 'vm-a')['status'] == 'ACTIVE'


@pytest.mark.parametrize('version,args,status,message', [
    ('2.96', {'host': 'nowhere'}, 404, 'Compute host nowhere not found.'),
    ('2.96', {'host': 'compute-0'}, 400,
     "The target host can't be the same one."),
    ('2.29', {'force': True}, 400,
     "Can't force to a non-provided destination"),
    ('2.68', {'host': 'compute-2', 'force': True}, 400, None),
    ('2.13', {}, 400, None),
    ('2.96', {'onSharedStorage': False}, 400, None),
])
def test_evacuate_bodies_by_microversion(sim, version, args, status,
                                         message):
    force_down(sim, 'compute-0')
    found, body = evacuate(sim, 'vm-a', version, **args)
    assert found == status
    if message:
        assert body[next(iter(body))]['message'] == message


def test_before_2_14_evacuate_answers_a_password(sim):
    force_down(sim, 'compute-0')
    status, body = evacuate(sim, 'vm-a', '2.13', onSharedStorage=False)
    assert status == 200 and body['adminPass']
    status, body = evacuate(sim, 'vm-c', '2.13', onSharedStorage=True)
    assert status == 400          # compute-1 is up
    force_down(sim, 'compute-1')
    assert evacuate(sim, 'vm-c', '2.13', onSharedStorage=True) == (
        200, {'adminPass': None})


def test_a_locked_server_can_be_evacuated(sim):
    # Nova's evacuate has no lock check.
    force_down(sim, 'compute-0')
    call(sim, 'POST', '/servers/%s/action' % uuid_of(sim, 'vm-a'),
         {'lock': None})
    assert evacuate(sim, 'vm-a')[0] == 200


# Evacuation: its time, statuses, allocations and notifications.

def test_an_evacuation_takes_time_and_goes_through_novas_statuses():
    sim = make(evacuate_seconds=30)
    try:
        hosts.lose_power(sim.cloud, 'compute-0')
        force_down(sim, 'compute-0')
        assert evacuate(sim, 'vm-a') == (200, None)
        server = show(sim, 'vm-a')
        assert (server['status'], server['OS-EXT-STS:task_state']) == (
            'REBUILD', 'rebuilding')
        assert host_of(server) == 'compute-0'
        [listed] = call(sim, 'GET', '/os-migrations?migration_type='
                        'evacuation')[1]['migrations']
        assert (listed['status'], listed['source_compute'],
                listed['dest_compute']) == ('accepted', 'compute-0', None)
        # The scheduler claimed the destination already.
        dest = sim.cloud.servers[uuid_of(sim, 'vm-a')].evacuating_to
        assert sim.cloud.used(dest)['memory_mb'] >= 1024
    finally:
        sim.stop()


def test_an_evacuation_ends_done_on_the_destination(sim):
    recorder = sim.cloud.events = Recorder()
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    evacuate(sim, 'vm-a', '2.94')
    wait(sim, lambda: migration_of(sim, 'vm-a').status == 'pre-migrating')
    assert show(sim, 'vm-a')['OS-EXT-STS:task_state'] == 'rebuild_spawning'
    server = done(sim, 'vm-a')
    migration = migration_of(sim, 'vm-a')
    assert migration.status == 'done'
    assert host_of(server) == migration.dest != 'compute-0'
    # Below 2.95 the server keeps its state.
    assert (server['status'], server['OS-EXT-STS:power_state']) == (
        'ACTIVE', 1)
    # Nova's notifications, from whom Nova sends them; the destination's
    # still name the source.
    dest = migration.dest
    assert [(e, p, h) for e, p, h, _ in recorder.seen
            if e.startswith(('instance.evacuate', 'instance.rebuild'))] == [
        ('instance.evacuate', 'nova-api:controller', 'compute-0'),
        ('instance.rebuild_scheduled', 'nova-conductor:controller',
         'compute-0'),
        ('instance.rebuild.start', 'nova-compute:%s' % dest, 'compute-0'),
        ('instance.rebuild.end', 'nova-compute:%s' % dest, 'compute-0')]


def test_the_source_keeps_its_allocation_until_its_compute_restarts(sim):
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    evacuate(sim, 'vm-a')
    done(sim, 'vm-a')
    uuid = uuid_of(sim, 'vm-a')
    dest = sim.cloud.servers[uuid].host
    req = webob.Request.blank('/placement/allocations/%s' % uuid,
                              headers={'X-Auth-Token': 'any'})
    held = req.get_response(sim).json['allocations']
    assert set(held) == {sim.cloud.hosts['compute-0'].uuid,
                         sim.cloud.hosts[dest].uuid}
    # No forcing the service up while `done` evacuations remain.
    status, body = force_down(sim, 'compute-0', down=False)
    assert status == 400
    assert 'Unable to force up host compute-0' in \
        body['badRequest']['message']
    hosts.recover(sim.cloud, 'compute-0')
    assert migration_of(sim, 'vm-a').status == 'completed'
    assert set(req.get_response(sim).json['allocations']) == {
        sim.cloud.hosts[dest].uuid}
    assert force_down(sim, 'compute-0', down=False)[0] == 200


@pytest.mark.parametrize('version,name,status', [
    ('2.95', 'vm-a', 'SHUTOFF'),
    ('2.94', 'vm-a', 'ACTIVE'),
    ('2.94', 'vm-b', 'SHUTOFF'),
    ('2.95', 'vm-b', 'SHUTOFF'),
])
def test_from_2_95_an_evacuated_server_ends_stopped(sim, version, name,
                                                    status):
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    evacuate(sim, name, version)
    server = done(sim, name)
    assert server['status'] == status
    assert server['OS-EXT-STS:power_state'] == (
        4 if status == 'SHUTOFF' else 1)


def test_a_server_in_error_comes_back_active_even_at_2_95(sim):
    sim.cloud.servers[uuid_of(sim, 'vm-a')].vm_state = 'error'
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    assert evacuate(sim, 'vm-a', '2.95')[0] == 200
    assert done(sim, 'vm-a')['status'] == 'ACTIVE'


def test_no_room_is_no_http_error_but_a_server_in_error(sim):
    # Fill compute-1 and compute-2 so that vm-big fits nowhere.
    for host in ('compute-1', 'compute-2'):
        call(sim, 'POST', '/servers', {'server': {
            'name': 'filler', 'flavorRef': '2',
            'availability_zone': 'nova:%s' % host}})
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    assert evacuate(sim, 'vm-big') == (200, None)
    server = show(sim, 'vm-big')
    assert server['status'] == 'ERROR'
    assert server['fault']['message'] == (
        'No valid host was found. There are not enough hosts available.')
    assert migration_of(sim, 'vm-big').status == 'error'
    assert host_of(server) == 'compute-0'


def test_a_forced_host_without_room_keeps_the_servers_state(sim):
    call(sim, 'POST', '/servers', {'server': {
        'name': 'filler', 'flavorRef': '2',
        'availability_zone': 'nova:compute-2'}})
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    # Before 2.29 a host given bypasses the scheduler.
    assert evacuate(sim, 'vm-big', '2.28', host='compute-2')[0] == 200
    server = show(sim, 'vm-big')
    assert (server['status'], server['OS-EXT-STS:task_state']) == (
        'ACTIVE', None)
    assert migration_of(sim, 'vm-big').status == 'error'


@pytest.mark.parametrize('version,args,ends', [
    ('2.28', {'host': 'compute-2'}, 'done'),
    ('2.29', {'host': 'compute-2', 'force': True}, 'done'),
    ('2.29', {'host': 'compute-2'}, 'error'),
    ('2.96', {'host': 'compute-2'}, 'error'),
])
def test_only_a_forced_host_may_be_disabled(sim, version, args, ends):
    call(sim, 'PUT', '/os-services/%s' % sim.cloud.hosts[
        'compute-2'].service_id, {'status': 'disabled'}, '2.53')
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    assert evacuate(sim, 'vm-a', version, **args)[0] == 200
    server = done(sim, 'vm-a')
    assert migration_of(sim, 'vm-a').status == ends
    if ends == 'done':
        assert host_of(server) == 'compute-2'


def test_an_evacuation_whose_destination_dies_stays_in_rebuild():
    clock = clock_mod.FakeClock()
    sim = make(clock, evacuate_seconds=0.3)
    try:
        hosts.lose_power(sim.cloud, 'compute-0')
        force_down(sim, 'compute-0')
        evacuate(sim, 'vm-a', host='compute-2')
        hosts.lose_power(sim.cloud, 'compute-2')
        clock.advance(0.5)
        assert show(sim, 'vm-a')['status'] == 'REBUILD'
        assert migration_of(sim, 'vm-a').status == 'accepted'
    finally:
        sim.stop()


def test_deleting_a_server_under_evacuation_fails_its_migration(sim):
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    evacuate(sim, 'vm-a')
    uuid = uuid_of(sim, 'vm-a')
    migration = migration_of(sim, 'vm-a')
    assert call(sim, 'DELETE', '/servers/%s' % uuid)[0] == 204
    wait(sim, lambda: migration.status == 'failed')
    assert all(uuid not in sim.cloud.by_host.uuids(h)
               for h in sim.cloud.hosts)


# Split brain.

def split_brain(sim):
    return webob.Request.blank('/simulator/state').get_response(
        sim).json['split_brain']


def test_evacuating_a_partitioned_host_runs_servers_twice(sim):
    hosts.partition(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    evacuate(sim, 'vm-a')
    evacuate(sim, 'vm-b')
    dest = host_of(done(sim, 'vm-a'))
    done(sim, 'vm-b')
    # vm-b was stopped: it did not run on the source.
    [record] = split_brain(sim)
    assert (record['server'], record['source'], record['destination']) == (
        uuid_of(sim, 'vm-a'), 'compute-0', dest)
    assert record['at'].endswith('Z')


def test_evacuating_a_dead_host_runs_nothing_twice(sim):
    hosts.lose_power(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    evacuate(sim, 'vm-a')
    done(sim, 'vm-a')
    assert split_brain(sim) == []


def test_evacuating_before_the_fence_is_done_runs_servers_twice():
    sim = make(clock_mod.FakeClock(), power_seconds=1.0,
               evacuate_seconds=0.1)
    try:
        hosts.partition(sim.cloud, 'compute-0')
        force_down(sim, 'compute-0')
        sim.ironic.set_power(sim.ironic.node('compute-0'), 'power off')
        evacuate(sim, 'vm-a')
        done(sim, 'vm-a')
        assert len(split_brain(sim)) == 1
    finally:
        sim.stop()


def test_evacuating_after_the_fence_runs_nothing_twice(sim):
    hosts.partition(sim.cloud, 'compute-0')
    force_down(sim, 'compute-0')
    sim.ironic.set_power(sim.ironic.node('compute-0'), 'power off')
    wait(sim, lambda: not sim.cloud.hosts['compute-0'].powered_on)
    evacuate(sim, 'vm-a')
    done(sim, 'vm-a')
    assert split_brain(sim) == []
