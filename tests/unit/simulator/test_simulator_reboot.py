"""The simulator's Nova reboot and instance actions: a SOFT reboot of an
ACTIVE server is REBOOT for the cloud's reboot_seconds, then ACTIVE,
notified as Nova does; a SOFT reboot of a stopped server is refused, a
HARD one starts it; a reboot cast to a dead compute sticks in its task;
an invalid type is Nova's 400. Each action nova-api accepts is recorded
in os-instance-actions, newest first, refused ones not."""

from tests.helpers.simulator_calls import microversion
from tests.helpers.simulator_calls import request
from watcher_ha.simulator.nova import hosts

SPEC = {
    'reboot_seconds': 5,
    'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8, 'memory_mb': 32768,
               'disk_gb': 500} for i in range(2)],
    'servers': [{'name': 'vm', 'flavor': 'm1.small', 'host': 'compute-0'},
                {'name': 'off', 'flavor': 'm1.small', 'host': 'compute-0',
                 'state': 'stopped'},
                {'name': 'far', 'flavor': 'm1.small',
                 'host': 'compute-1'}]}


def uuid_of(sim, name):
    return next(u for u, s in sim.cloud.servers.items() if s.name == name)


def nova(sim, method, path, body=None, version='2.96'):
    return request(sim, method, '/compute/v2.1' + path, body,
                   microversion('compute', version))


def reboot(sim, name, kind='SOFT'):
    return nova(sim, 'POST', '/servers/%s/action' % uuid_of(sim, name),
                {'reboot': {'type': kind}})


def status(sim, name):
    return nova(sim, 'GET', '/servers/' + uuid_of(sim, name)).json[
        'server']['status']


def actions(sim, name, version='2.96'):
    return nova(sim, 'GET', '/servers/%s/os-instance-actions'
                % uuid_of(sim, name), version=version).json[
        'instanceActions']


def test_a_soft_reboot_takes_its_time_then_the_server_is_active(sim):
    assert reboot(sim, 'vm').status_int == 202
    assert status(sim, 'vm') == 'REBOOT'
    sim.clock.advance(5.1)
    assert status(sim, 'vm') == 'ACTIVE'
    [recorded] = actions(sim, 'vm')
    assert recorded['action'] == 'reboot'
    assert recorded['request_id'].startswith('req-')
    assert {'start_time', 'updated_at', 'user_id', 'project_id',
            'message', 'instance_uuid'} <= set(recorded)
    assert 'updated_at' not in actions(sim, 'vm', version='2.57')[0]


def test_a_stopped_server_takes_a_hard_reboot_only(sim):
    refused = reboot(sim, 'off')
    assert refused.status_int == 409
    assert "Cannot 'reboot' instance" in refused.json[
        'conflictingRequest']['message']
    assert actions(sim, 'off') == []
    assert reboot(sim, 'off', 'hard').status_int == 202
    assert status(sim, 'off') == 'HARD_REBOOT'
    sim.clock.advance(5.1)
    assert status(sim, 'off') == 'ACTIVE'
    assert [a['action'] for a in actions(sim, 'off')] == ['reboot']


def test_a_reboot_cast_to_a_dead_compute_sticks(sim):
    hosts.crash(sim.cloud, 'compute-1')
    assert reboot(sim, 'far').status_int == 202
    sim.clock.advance(60)
    assert status(sim, 'far') == 'REBOOT'
    # Recorded all the same: nova-api accepted it.
    assert [a['action'] for a in actions(sim, 'far')] == ['reboot']


def test_a_reboot_of_no_known_type_is_refused(sim):
    refused = reboot(sim, 'vm', 'GENTLE')
    assert refused.status_int == 400
    assert "'GENTLE' does not match" in refused.json['badRequest'][
        'message']


def test_actions_are_listed_newest_first_from_the_create(sim):
    made = nova(sim, 'POST', '/servers', {'server': {
        'name': 'new', 'flavorRef': 'm1.small', 'networks': 'auto'}})
    uuid = made.json['server']['id']
    for action in ('os-stop', 'os-start'):
        assert nova(sim, 'POST', '/servers/%s/action' % uuid,
                    {action: None}).status_int == 202
    assert [a['action'] for a in nova(
        sim, 'GET', '/servers/%s/os-instance-actions' % uuid).json[
        'instanceActions']] == ['start', 'stop', 'create']
