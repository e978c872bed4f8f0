"""The simulator's Nova volume attachments (os-volume_attachments) and
server metadata, in process: Nova's views by microversion, its refusals
(a volume mapped elsewhere, a multiattach volume below 2.60, a detach
while the host is down), its wait for a compute that never answers, its
local delete of a server on a down host; Cinder's refusal to delete an
attachment Nova still maps unless a service asks; and which running
guests can write to a volume, a partitioned host's included."""

import pytest

from tests.helpers.simulator_calls import microversion
from tests.helpers.simulator_calls import request
from watcher_ha.simulator.nova import hosts

DATA = '0d000000-0000-4000-8000-000000000001'
SHARED = '0d000000-0000-4000-8000-000000000002'
SPARE = '0d000000-0000-4000-8000-000000000003'
POOL = 'stor1@fast#p1'
SPEC = {
    'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8, 'memory_mb': 32768,
               'disk_gb': 500} for i in range(3)],
    'servers': [{'name': 'active', 'flavor': 'm1.small',
                 'host': 'compute-0'},
                {'name': 'standby', 'flavor': 'm1.small',
                 'host': 'compute-1'}],
    'users': [{'name': 'nova', 'password': 'nova', 'project': 'service',
               'roles': ['service']}],
    'storage': {
        'backends': [{'host': 'stor1', 'backend': 'fast',
                      'pools': [{'name': 'p1',
                                 'total_capacity_gb': 100}]}],
        'volumes': [
            {'id': DATA, 'name': 'data', 'size': 10, 'pool': POOL,
             'attached_to': 'active'},
            {'id': SHARED, 'name': 'shared', 'size': 10, 'pool': POOL,
             'multiattach': True},
            {'id': SPARE, 'name': 'spare', 'size': 10, 'pool': POOL}]}}


def uuid_of(sim, name):
    return next(uuid for uuid, s in sim.cloud.servers.items()
                if s.name == name)


def nova(sim, method, path, body=None, version='2.89', headers=None):
    return request(sim, method, '/compute/v2.1' + path, body,
                   dict(microversion('compute', version), **(headers or {})))


def attach(sim, server, volume, version='2.89', **more):
    return nova(sim, 'POST', '/servers/%s/os-volume_attachments' % server,
                {'volumeAttachment': dict(volumeId=volume, **more)},
                version=version)


def detach(sim, server, volume):
    return nova(sim, 'DELETE', '/servers/%s/os-volume_attachments/%s'
                % (server, volume))


def cinder_volume(sim, volume):
    return request(sim, 'GET', '/volume/v3/volumes/%s' % volume, None,
                   microversion('volume', '3.60')).json['volume']


def test_nova_attaches_a_volume_and_shows_it_by_microversion(sim):
    standby = uuid_of(sim, 'standby')
    made = attach(sim, standby, SPARE, tag='db')
    assert made.status_int == 200, made.text
    assert made.json['volumeAttachment'] == {
        'id': SPARE, 'serverId': standby, 'volumeId': SPARE,
        'device': '/dev/vdb', 'tag': 'db', 'delete_on_termination': False}
    found = cinder_volume(sim, SPARE)
    assert found['status'] == 'in-use'
    [attachment] = found['attachments']
    assert attachment['server_id'] == standby
    shown = nova(sim, 'GET', '/servers/%s/os-volume_attachments/%s'
                 % (standby, SPARE)).json['volumeAttachment']
    assert shown == {'volumeId': SPARE, 'serverId': standby,
                     'device': '/dev/vdb', 'tag': 'db',
                     'delete_on_termination': False,
                     'attachment_id': attachment['attachment_id'],
                     'bdm_uuid': shown['bdm_uuid']}
    old = nova(sim, 'GET', '/servers/%s/os-volume_attachments' % standby,
               version='2.1').json['volumeAttachments']
    assert old == [{'id': SPARE, 'volumeId': SPARE, 'serverId': standby,
                    'device': '/dev/vdb'}]
    server = nova(sim, 'GET', '/servers/%s' % standby).json['server']
    assert server['os-extended-volumes:volumes_attached'] == [
        {'id': SPARE, 'delete_on_termination': False}]
    assert nova(sim, 'GET', '/servers/%s/os-volume_attachments/%s'
                % (standby, DATA)).status_int == 404


def test_a_scenario_s_attached_volume_is_mapped_in_nova_too(sim):
    active = uuid_of(sim, 'active')
    listed = nova(sim, 'GET', '/servers/%s/os-volume_attachments'
                  % active).json['volumeAttachments']
    assert [(a['volumeId'], a['device']) for a in listed] == [
        (DATA, '/dev/vdb')]
    [attachment] = cinder_volume(sim, DATA)['attachments']
    assert listed[0]['attachment_id'] == attachment['attachment_id']


def test_a_volume_mapped_to_another_server_is_refused_by_nova(sim):
    active, standby = uuid_of(sim, 'active'), uuid_of(sim, 'standby')
    refused = attach(sim, standby, DATA)
    assert refused.status_int == 400
    assert refused.json['badRequest']['message'] == (
        'Invalid volume: volume %s is already attached to instances: %s'
        % (DATA, active))
    assert attach(sim, active, SHARED, version='2.59').json[
        'badRequest']['message'] == ('Multiattach volumes are only '
                                     'supported starting with compute API '
                                     'version 2.60.')
    assert attach(sim, active, SHARED, version='2.60').status_int == 200
    assert attach(sim, standby, SHARED, version='2.60').status_int == 200
    assert attach(sim, 'nope', SPARE).status_int == 404
    assert attach(sim, active, 'nope').status_int == 404
    bad = nova(sim, 'POST', '/servers/%s/os-volume_attachments' % active,
               {'volumeAttachment': {'volumeId': SPARE, 'color': 'red'}})
    assert bad.status_int == 400 and 'color' in bad.text


def test_an_attach_waits_for_a_dead_compute_then_fails(sim):
    """nova-api calls the host's compute for a device name and gives up
    after rpc_response_timeout: a 500, and nothing attached."""
    sim.cloud.hosts['compute-1'].forced_down = True     # Nova: down
    hosts.crash(sim.cloud, 'compute-1')
    standby = uuid_of(sim, 'standby')
    before = sim.clock.time()
    failed = attach(sim, standby, SPARE)
    assert failed.status_int == 500
    assert 'MessagingTimeout' in failed.json['computeFault']['message']
    assert sim.clock.time() - before == pytest.approx(60)
    assert sim.cloud.rpc_timeouts[-1]['method'] == \
        'reserve_block_device_name'
    assert cinder_volume(sim, SPARE)['status'] == 'available'
    assert sim.cloud.servers[standby].volumes == {}


def test_nova_refuses_a_detach_while_the_host_is_down(sim):
    active = uuid_of(sim, 'active')
    hosts.lose_power(sim.cloud, 'compute-0')
    refused = detach(sim, active, DATA)
    assert refused.status_int == 409
    assert refused.json['conflictingRequest']['message'] == \
        'Service is unavailable at this time.'
    assert cinder_volume(sim, DATA)['status'] == 'in-use'


def test_a_detach_through_a_running_compute_frees_the_volume(sim):
    active = uuid_of(sim, 'active')
    assert detach(sim, active, DATA).status_int == 202
    assert cinder_volume(sim, DATA)['status'] == 'available'
    assert sim.cloud.servers[active].volumes == {}
    assert sim.cloud.storage.writers(DATA) == []
    assert detach(sim, active, DATA).status_int == 404


def test_a_detach_cast_to_a_silent_compute_nova_counts_up_sticks(sim):
    host = sim.cloud.hosts['compute-0']
    host.service_down_time = 60.0
    hosts.partition(sim.cloud, 'compute-0')
    assert host.state == 'up'
    assert detach(sim, uuid_of(sim, 'active'), DATA).status_int == 202
    assert cinder_volume(sim, DATA)['status'] == 'detaching'


def service_token(sim):
    made = request(sim, 'POST', '/identity/v3/auth/tokens', {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'nova', 'password': 'nova',
            'domain': {'id': 'default'}}}},
        'scope': {'project': {'name': 'service',
                              'domain': {'id': 'default'}}}}})
    assert made.status_int == 201, made.text
    return made.headers['X-Subject-Token']


def test_cinder_deletes_an_attachment_nova_maps_only_for_a_service(sim):
    active, standby = uuid_of(sim, 'active'), uuid_of(sim, 'standby')
    [attachment] = cinder_volume(sim, DATA)['attachments']
    path = '/volume/v3/attachments/%s' % attachment['attachment_id']
    refused = request(sim, 'DELETE', path, None,
                      microversion('volume', '3.60'))
    assert refused.status_int == 409
    assert refused.json['conflictingRequest']['message'] == (
        'ConflictNovaUsingAttachment: Detach volume from instance %s using '
        'the Compute API' % active)
    done = request(sim, 'DELETE', path, None, dict(
        microversion('volume', '3.60'),
        **{'X-Service-Token': service_token(sim)}))
    assert done.status_int == 200, done.text
    assert cinder_volume(sim, DATA)['status'] == 'available'
    # Nova still maps it: it refuses to attach it elsewhere.
    assert attach(sim, standby, DATA).status_int == 400
    # The guest was never told: it still writes.
    assert sim.cloud.storage.writers(DATA) == [active]


def test_a_local_delete_on_a_powered_off_host_frees_the_volume(sim):
    active, standby = uuid_of(sim, 'active'), uuid_of(sim, 'standby')
    hosts.lose_power(sim.cloud, 'compute-0')
    assert nova(sim, 'DELETE', '/servers/%s' % active).status_int == 204
    assert active not in sim.cloud.servers
    assert cinder_volume(sim, DATA)['status'] == 'available'
    assert attach(sim, standby, DATA).status_int == 200
    assert sim.cloud.storage.writers(DATA) == [standby]
    assert sim.cloud.storage.shared_writes == []
    # Every attach completed is kept (the scenario's own is not one).
    state = request(sim, 'GET', '/simulator/state').json
    assert [(a['volume'], a['server'], a['host'])
            for a in state['attaches']] == [(DATA, standby, 'compute-1')]


@pytest.mark.parametrize('fail', [hosts.lose_power, hosts.partition],
                         ids=['powered off', 'partitioned'])
def test_without_a_service_token_a_delete_leaves_cinder_attached(sim, fail):
    """Without Nova's service token Cinder refuses the attachment
    deletes of Nova's delete, which Nova ignores: the volume stays in-use
    by a server that is gone (a guest still running keeps writing), until
    somebody deletes the attachment through Cinder, allowed then."""
    active, standby = uuid_of(sim, 'active'), uuid_of(sim, 'standby')
    sim.cloud.nova_service_token = False
    fail(sim.cloud, 'compute-0')
    assert nova(sim, 'DELETE', '/servers/%s' % active).status_int == 204
    left = cinder_volume(sim, DATA)
    assert left['status'] == 'in-use'
    [attachment] = left['attachments']
    assert attachment['server_id'] == active
    assert attach(sim, standby, DATA).status_int == 400
    running = fail is hosts.partition
    assert sim.cloud.storage.writers(DATA) == ([active] if running else [])
    done = request(sim, 'DELETE', '/volume/v3/attachments/%s'
                   % attachment['attachment_id'], None,
                   microversion('volume', '3.60'))
    assert done.status_int == 200, done.text
    assert cinder_volume(sim, DATA)['status'] == 'available'
    assert sim.cloud.storage.writers(DATA) == ([active] if running else [])


def test_a_partitioned_guest_keeps_writing_after_a_local_delete(sim):
    """Nova deletes a server on a host it counts down without the host:
    its guest, still running behind a partition, keeps the volume; an
    attach elsewhere then makes the volume writable twice, until the
    host is powered off."""
    active, standby = uuid_of(sim, 'active'), uuid_of(sim, 'standby')
    hosts.partition(sim.cloud, 'compute-0')
    assert nova(sim, 'DELETE', '/servers/%s' % active).status_int == 204
    assert cinder_volume(sim, DATA)['status'] == 'available'
    assert sim.cloud.storage.writers(DATA) == [active]
    assert attach(sim, standby, DATA).status_int == 200
    assert sorted(sim.cloud.storage.writers(DATA)) == sorted(
        [active, standby])
    state = request(sim, 'GET', '/simulator/state').json
    assert sorted(state['volumes'][DATA]['writers']) == sorted(
        [active, standby])
    [shared] = state['shared_writes']
    assert (shared['volume'], sorted(shared['servers'])) == (
        DATA, sorted([active, standby]))
    hosts.power_off(sim.cloud, sim.cloud.hosts['compute-0'])
    assert sim.cloud.storage.writers(DATA) == [standby]


def test_a_delete_cast_to_a_silent_compute_nova_counts_up_sticks(sim):
    sim.cloud.hosts['compute-0'].service_down_time = 60.0
    hosts.partition(sim.cloud, 'compute-0')
    active = uuid_of(sim, 'active')
    assert nova(sim, 'DELETE', '/servers/%s' % active).status_int == 204
    assert sim.cloud.servers[active].task_state == 'deleting'
    assert cinder_volume(sim, DATA)['status'] == 'in-use'


# Metadata.

def metadata(sim, server, method='GET', key=None, body=None):
    path = '/servers/%s/metadata' % server + ('/%s' % key if key else '')
    return nova(sim, method, path, body)


def test_server_metadata_is_set_read_and_deleted_as_nova_does(sim):
    active = uuid_of(sim, 'active')
    put = metadata(sim, active, 'PUT', 'role', {'meta': {'role': 'active'}})
    assert (put.status_int, put.json) == (200, {'meta': {'role': 'active'}})
    assert metadata(sim, active, key='role').json == {
        'meta': {'role': 'active'}}
    merged = metadata(sim, active, 'POST', body={'metadata': {'app': 'db'}})
    assert merged.json == {'metadata': {'role': 'active', 'app': 'db'}}
    replaced = metadata(sim, active, 'PUT', body={'metadata': {'x': '1'}})
    assert replaced.json == {'metadata': {'x': '1'}}
    assert metadata(sim, active, 'DELETE', 'x').status_int == 204
    assert metadata(sim, active).json == {'metadata': {}}
    assert metadata(sim, active, 'DELETE', 'x').status_int == 404
    assert metadata(sim, active, key='x').status_int == 404
    mismatch = metadata(sim, active, 'PUT', 'role', {'meta': {'r': 'a'}})
    assert mismatch.json['badRequest']['message'] == \
        'Request body and URI mismatch'
    assert metadata(sim, active, 'PUT', 'role', {
        'meta': {'role': 'a', 'b': 'c'}}).status_int == 400
    assert metadata(sim, active, 'PUT', 'role', {
        'meta': {'role': 7}}).status_int == 400
    assert 'has too many properties' in metadata(sim, active, 'PUT', 'role', {
        'meta': {'role': 'a', 'b': 'c'}}).text
    assert "('ro/le' was unexpected)" in metadata(
        sim, active, 'POST', body={'metadata': {'ro/le': 'x'}}).text


def test_metadata_needs_no_host_but_a_settled_unlocked_server(sim):
    active = uuid_of(sim, 'active')
    hosts.lose_power(sim.cloud, 'compute-0')
    assert metadata(sim, active, 'PUT', 'role',
                    {'meta': {'role': 'failed'}}).status_int == 200
    sim.cloud.servers[active].task_state = 'powering-off'
    stuck = metadata(sim, active, 'PUT', 'role', {'meta': {'role': 'x'}})
    assert stuck.status_int == 409
    sim.cloud.servers[active].task_state = None
    sim.cloud.lock_server(active, True)
    assert metadata(sim, active, 'PUT', 'role',
                    {'meta': {'role': 'x'}}).status_int == 409


def test_a_stop_cast_to_a_dead_compute_sticks_until_it_starts(sim):
    """Nova casts a stop to the server's compute: one that is dead never
    does it, and the server stays powering-off (refusing metadata, as
    any task does); the compute's next start settles it."""
    active = uuid_of(sim, 'active')
    hosts.crash(sim.cloud, 'compute-0')
    stopped = nova(sim, 'POST', '/servers/%s/action' % active,
                   {'os-stop': None})
    assert stopped.status_int == 202
    server = sim.cloud.servers[active]
    assert (server.vm_state, server.task_state) == ('active', 'powering-off')
    assert metadata(sim, active, 'PUT', 'role',
                    {'meta': {'role': 'x'}}).status_int == 409
    hosts.recover(sim.cloud, 'compute-0')
    assert (server.vm_state, server.task_state) == ('stopped', None)
