"""The simulator's server groups (Nova's os-server-groups), in process:
Nova's bodies by microversion, servers created into a group by the
scheduler hint and placed by its policy, and moves that would break a
hard policy failing as Nova fails them: a live migration ends in error
(NoValidHost in the conductor, the server stays), a cold migration is a
400."""

import pytest

from tests.helpers.simulator_calls import microversion
from tests.helpers.simulator_calls import request
from watcher_ha.simulator import simulator


@pytest.fixture
def sim():
    found = simulator.Simulator({
        'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8,
                   'memory_mb': 32768, 'disk_gb': 500} for i in range(3)],
        'bandwidth_mb_per_s': 100000})
    yield found
    found.stop()


def call(sim, method, path, body=None, version='2.96'):
    return request(sim, method, '/compute/v2.1' + path, body,
                   microversion('compute', version))


def group(sim, policy, rules=None):
    body = {'name': 'g-' + policy, 'policy': policy}
    if rules is not None:
        body['rules'] = rules
    resp = call(sim, 'POST', '/os-server-groups', {'server_group': body})
    assert resp.status_int == 200, resp.text
    return resp.json['server_group']


def boot(sim, name, group_id, host=None):
    body = {'server': {'name': name, 'flavorRef': '2'},
            'os:scheduler_hints': {'group': group_id}}
    if host:
        body['server']['availability_zone'] = 'nova:%s' % host
    resp = call(sim, 'POST', '/servers', body)
    assert resp.status_int == 202, resp.text
    return resp.json['server']['id']


def host_of(sim, uuid):
    return sim.cloud.servers[uuid].host


def test_a_group_in_nova_s_formats(sim):
    made = group(sim, 'anti-affinity', {'max_server_per_host': 2})
    assert set(made) == {'id', 'name', 'policy', 'rules', 'members',
                         'project_id', 'user_id'}
    assert (made['policy'], made['rules'], made['members']) == (
        'anti-affinity', {'max_server_per_host': 2}, [])
    old = call(sim, 'GET', '/os-server-groups/%s' % made['id'],
               version='2.63').json['server_group']
    assert (old['policies'], old['metadata']) == (['anti-affinity'], {})
    assert 'policy' not in old
    listed = call(sim, 'GET', '/os-server-groups').json['server_groups']
    assert [g['id'] for g in listed] == [made['id']]
    assert call(sim, 'DELETE', '/os-server-groups/%s' % made['id']
                ).status_int == 204
    gone = call(sim, 'GET', '/os-server-groups/%s' % made['id'])
    assert gone.status_int == 404
    assert gone.json['itemNotFound']['message'] == (
        'Instance group %s could not be found.' % made['id'])


@pytest.mark.parametrize('body', [
    {'name': 'x', 'policy': 'together'},
    {'name': 'x', 'policy': 'affinity', 'rules': {'max_server_per_host': 2}},
    {'name': 'x', 'policy': 'anti-affinity',
     'rules': {'max_server_per_host': 0}},
    {'name': 'x', 'policies': ['affinity']},
    {'policy': 'affinity'},
])
def test_a_bad_group_is_refused(sim, body):
    resp = call(sim, 'POST', '/os-server-groups', {'server_group': body})
    assert resp.status_int == 400, body
    assert 'Invalid input' in resp.json['badRequest']['message']


def test_members_are_placed_by_the_policy(sim):
    apart = group(sim, 'anti-affinity')
    first = boot(sim, 'a1', apart['id'])
    second = boot(sim, 'a2', apart['id'])
    third = boot(sim, 'a3', apart['id'])
    assert len({host_of(sim, u) for u in (first, second, third)}) == 3
    refused = call(sim, 'POST', '/servers', {
        'server': {'name': 'a4', 'flavorRef': '2'},
        'os:scheduler_hints': {'group': apart['id']}})
    assert refused.status_int == 400
    assert 'No valid host' in refused.json['badRequest']['message']
    together = group(sim, 'affinity')
    one = boot(sim, 'b1', together['id'])
    two = boot(sim, 'b2', together['id'])
    assert host_of(sim, one) == host_of(sim, two)
    members = call(sim, 'GET', '/os-server-groups/%s' % together['id']
                   ).json['server_group']['members']
    assert members == [one, two]
    call(sim, 'DELETE', '/servers/%s' % one)
    members = call(sim, 'GET', '/os-server-groups/%s' % together['id']
                   ).json['server_group']['members']
    assert members == [two]
    assert call(sim, 'POST', '/servers', {
        'server': {'name': 'c', 'flavorRef': '2'},
        'os:scheduler_hints': {'group': 'nope'}}).status_int == 400


def test_a_live_migration_breaking_affinity_ends_in_error(sim):
    together = group(sim, 'affinity')
    one = boot(sim, 'b1', together['id'], host='compute-0')
    boot(sim, 'b2', together['id'], host='compute-0')
    resp = call(sim, 'POST', '/servers/%s/action' % one, {
        'os-migrateLive': {'host': 'compute-1', 'block_migration': 'auto'}})
    assert resp.status_int == 202, resp.text
    [migration] = call(sim, 'GET', '/os-migrations?instance_uuid=%s'
                       % one).json['migrations']
    assert (migration['status'], migration['dest_compute']) == (
        'error', 'compute-1')
    server = call(sim, 'GET', '/servers/%s' % one).json['server']
    assert (server['status'], server['OS-EXT-SRV-ATTR:host']) == (
        'ACTIVE', 'compute-0')
    # Before 2.34 the API waited for the conductor: a 400.
    old = call(sim, 'POST', '/servers/%s/action' % one, {
        'os-migrateLive': {'host': 'compute-1', 'block_migration': 'auto'}},
        version='2.30')
    assert old.status_int == 400
    assert 'No valid host was found' in old.json['badRequest']['message']
    # Without a host, the scheduler finds none either: the other member
    # is on compute-0.
    assert call(sim, 'POST', '/servers/%s/action' % one, {
        'os-migrateLive': {'host': None, 'block_migration': 'auto'}}
        ).status_int == 400


def test_a_cold_migration_breaking_anti_affinity_is_a_400(sim):
    apart = group(sim, 'anti-affinity')
    one = boot(sim, 'a1', apart['id'], host='compute-0')
    boot(sim, 'a2', apart['id'], host='compute-1')
    resp = call(sim, 'POST', '/servers/%s/action' % one,
                {'migrate': {'host': 'compute-1'}})
    assert resp.status_int == 400
    assert resp.json['badRequest']['message'].startswith(
        'No valid host was found.')
    assert host_of(sim, one) == 'compute-0'
    # The scheduler keeps the policy: compute-2 is the one left.
    assert call(sim, 'POST', '/servers/%s/action' % one,
                {'migrate': None}).status_int == 202
    assert sim.cloud.migrations[max(sim.cloud.migrations)].dest == \
        'compute-2'


def test_soft_policies_refuse_no_host(sim):
    soft = group(sim, 'soft-affinity')
    one = boot(sim, 's1', soft['id'], host='compute-0')
    boot(sim, 's2', soft['id'], host='compute-0')
    resp = call(sim, 'POST', '/servers/%s/action' % one, {
        'os-migrateLive': {'host': 'compute-1', 'block_migration': 'auto'}})
    assert resp.status_int == 202
    [migration] = call(sim, 'GET', '/os-migrations?instance_uuid=%s'
                       % one).json['migrations']
    assert migration['status'] != 'error'
