"""The simulator's Block Storage API (Cinder v3), in process: volumes with
Cinder's detail fields and paging, pools whose capacity follows their
volumes, types and services; migrations, retypes and extends that take
time, fail as Cinder fails them and are recorded; attachments to the
simulator's servers; Cinder's notifications on the wire (oslo.messaging,
exchange openstack, topic notifications)."""

import time

import pytest
import webob

from tests.helpers.simulator_calls import microversion
from tests.helpers.simulator_calls import notifications_heard
from tests.helpers.simulator_calls import request
from tests.helpers.simulator_calls import until
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator
from watcher_ha.simulator.cinder import notifications as notes

VOLUME_A = '0a000000-0000-4000-8000-000000000001'
VOLUME_B = '0b000000-0000-4000-8000-000000000002'
VOLUME_C = '0c000000-0000-4000-8000-000000000003'
FAST1 = 'stor1@fast#p1'
FAST2 = 'stor2@fast#p1'
SLOW = 'stor3@slow#big'
SPEC = {
    'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8, 'memory_mb': 32768,
               'disk_gb': 500} for i in range(2)],
    'servers': [{'name': 'vm-a', 'flavor': 'm1.small', 'host': 'compute-0'},
                {'name': 'vm-off', 'flavor': 'm1.small', 'host': 'compute-0',
                 'state': 'stopped'}],
    'storage': {
        'default_volume_type': 'fast',
        'volume_migration_seconds_per_gb': 0.01,
        'volume_create_seconds': 0.05, 'volume_delete_seconds': 0.05,
        'volume_extend_seconds': 0.05, 'volume_step_seconds': 0.05,
        'backends': [
            {'host': 'stor1', 'backend': 'fast', 'zone': 'nova',
             'pools': [{'name': 'p1', 'total_capacity_gb': 100}]},
            {'host': 'stor2', 'backend': 'fast', 'zone': 'nova',
             'pools': [{'name': 'p1', 'total_capacity_gb': 100,
                        'reserved_percentage': 10}]},
            {'host': 'stor3', 'backend': 'slow', 'zone': 'nova',
             'pools': [{'name': 'big', 'total_capacity_gb': 50,
                        'thin': True,
                        'max_over_subscription_ratio': 2.0}]}],
        'volume_types': [
            {'name': 'fast', 'extra_specs': {'volume_backend_name': 'fast'}},
            {'name': 'slow', 'extra_specs': {'volume_backend_name': 'slow'}},
            {'name': 'any'}],
        'volumes': [
            {'id': VOLUME_A, 'name': 'a', 'size': 10, 'pool': FAST1,
             'type': 'fast', 'project': 'p1'},
            {'id': VOLUME_B, 'name': 'b', 'size': 20, 'pool': FAST1,
             'type': 'fast', 'project': 'p2', 'attached_to': 'vm-a'},
            {'id': VOLUME_C, 'name': 'c', 'size': 5, 'pool': FAST1,
             'type': 'fast', 'project': 'p1', 'attached_to': 'vm-off'}]}}


class Recorder:
    """The storage's event sink, keeping what it would send."""

    def __init__(self):
        self.sent = []

    def emit(self, event_type, publisher, payload):
        self.sent.append((event_type, publisher, payload))

    def types(self):
        return [event for event, _publisher, _payload in self.sent]


@pytest.fixture
def sim():
    found = simulator.Simulator(SPEC, clock=clock_mod.FakeClock())
    found.cloud.storage.events = Recorder()
    yield found
    found.stop()


def call(sim, method, path, body=None, version='3.60'):
    return request(sim, method, '/volume/v3' + path, body,
                   microversion('volume', version))


def volume(sim, ident, version='3.60'):
    resp = call(sim, 'GET', '/volumes/%s' % ident, version=version)
    assert resp.status_int == 200, resp.text
    return resp.json['volume']


def pool(sim, name):
    [found] = [p for p in call(sim, 'GET', '/scheduler-stats/get_pools'
                                            '?detail=true').json['pools']
               if p['name'] == name]
    return found['capabilities']


def wait(sim, check, timeout=5):
    """Move the simulator's time on until ``check`` holds."""
    until(check, sim.clock.advance, timeout)


def action(sim, ident, body, version='3.60'):
    return call(sim, 'POST', '/volumes/%s/action' % ident, body,
                version=version)


def simulator_state(sim):
    req = webob.Request.blank('/simulator/state')
    return req.get_response(sim).json


# Versions and errors.

def test_microversions_are_cinders(sim):
    resp = call(sim, 'GET', '/volumes/%s' % VOLUME_A, version='3.71')
    assert resp.headers['OpenStack-API-Version'] == 'volume 3.71'
    assert call(sim, 'GET', '/types', version='3.72').status_int == 406
    bad = call(sim, 'GET', '/types', version='three')
    assert bad.status_int == 400
    assert 'invalid format' in bad.json['badRequest']['message']
    root = webob.Request.blank('/volume/').get_response(sim)
    assert root.status_int == 300
    assert root.json['versions'][0]['version'] == '3.71'
    assert call(sim, 'GET', '/', version=None).json['version'][
        'min_version'] == '3.0'


def test_a_missing_volume_is_cinders_404(sim):
    resp = call(sim, 'GET', '/volumes/nope')
    assert resp.status_int == 404
    assert resp.json == {'itemNotFound': {
        'code': 404, 'message': 'Volume nope could not be found.'}}


def test_paths_with_a_project_id_are_served_too(sim):
    resp = call(sim, 'GET', '/some-project/volumes/%s' % VOLUME_A)
    assert resp.json['volume']['id'] == VOLUME_A
    assert '/v3/some-project/volumes/' in resp.json['volume']['links'][0][
        'href']


# Volumes.

def test_a_volume_detail_has_cinders_fields(sim):
    found = volume(sim, VOLUME_B)
    assert found['os-vol-host-attr:host'] == FAST1
    assert found['os-vol-tenant-attr:tenant_id'] == 'p2'
    assert found['os-vol-mig-status-attr:migstat'] is None
    assert found['migration_status'] is None
    assert (found['status'], found['size'], found['volume_type'],
            found['bootable']) == ('in-use', 20, 'fast', 'false')
    [attached] = found['attachments']
    server = sim.cloud.servers[attached['server_id']]
    assert (server.name, attached['host_name'], attached['volume_id']) == (
        'vm-a', 'compute-0', VOLUME_B)
    assert 'volume_type_id' not in found
    assert found['service_uuid']
    assert 'volume_type_id' in volume(sim, VOLUME_B, version='3.63')
    assert 'service_uuid' not in volume(sim, VOLUME_B, version='3.0')


def test_volumes_of_all_projects_page_by_limit_and_marker(sim):
    assert call(sim, 'GET', '/volumes/detail').json == {'volumes': []}
    seen, query = [], '/volumes/detail?all_tenants=1&limit=2'
    while True:
        body = call(sim, 'GET', query).json
        seen += [v['id'] for v in body['volumes']]
        if 'volumes_links' not in body:
            break
        query = body['volumes_links'][0]['href'].split('/v3/admin-project',
                                                       1)[1]
    assert seen == [VOLUME_C, VOLUME_B, VOLUME_A]
    only = call(sim, 'GET', '/volumes/detail?all_tenants=true&project_id=p1')
    assert [v['id'] for v in only.json['volumes']] == [VOLUME_C, VOLUME_A]
    lost = call(sim, 'GET', '/volumes/detail?all_tenants=1&marker=nope')
    assert lost.status_int == 404
    counted = call(sim, 'GET', '/volumes?all_tenants=1&with_count=true')
    assert counted.json['count'] == 3
    assert set(counted.json['volumes'][0]) == {'id', 'name', 'links'}


def test_a_volume_is_created_on_the_emptiest_pool_of_its_type(sim):
    resp = call(sim, 'POST', '/volumes', {'volume': {'size': 4,
                                                     'name': 'new'}})
    assert resp.status_int == 202, resp.text
    made = resp.json['volume']
    assert made['status'] == 'creating'
    # stor1's pool holds 35 GiB already.
    assert made['os-vol-host-attr:host'] == FAST2
    wait(sim, lambda: volume(sim, made['id'])['status'] == 'available')
    events = sim.cloud.storage.events.sent
    assert [e for e, _p, _d in events] == [
        'volume.create.start', 'volume.create.end', 'capacity.pool']
    _event, publisher, payload = events[1]
    assert publisher == 'volume.stor2@fast'
    assert (payload['volume_id'], payload['host'], payload['size'],
            payload['status'], payload['tenant_id']) == (
        made['id'], FAST2, 4, 'available', 'admin-project')
    assert payload['volume_type'] == sim.cloud.storage.volume_type(
        'fast').id
    assert payload['volume_attachment'] == []
    _event, publisher, capacity = events[2]
    assert publisher == 'capacity.controller'
    assert (capacity['name_to_id'], capacity['allocated'],
            capacity['free'], capacity['virtual_free']) == (
        FAST2, 4.0, 96.0, 86.0)


def test_creating_refuses_bad_input_and_errors_without_room(sim):
    for body, status in (({'size': 0}, 400), ({'size': 'x'}, 400),
                         ({'size': 1, 'volume_type': 'gold'}, 404),
                         ({'size': 1, 'availability_zone': 'moon'}, 400)):
        assert call(sim, 'POST', '/volumes', {'volume': body}).status_int \
            == status, body
    # Thin: 50 GiB times 2.
    resp = call(sim, 'POST', '/volumes', {'volume': {
        'size': 101, 'volume_type': 'slow'}})
    assert resp.json['volume']['status'] == 'error'
    assert resp.json['volume']['os-vol-host-attr:host'] is None
    resp = call(sim, 'POST', '/volumes', {'volume': {
        'size': 100, 'volume_type': 'slow'}})
    assert resp.json['volume']['os-vol-host-attr:host'] == SLOW


def test_a_volume_is_deleted_unless_attached(sim):
    refused = call(sim, 'DELETE', '/volumes/%s' % VOLUME_B)
    assert refused.status_int == 400
    assert 'must not be migrating, attached' in refused.json[
        'badRequest']['message']
    assert call(sim, 'DELETE', '/volumes/%s' % VOLUME_A).status_int == 202
    assert volume(sim, VOLUME_A)['status'] == 'deleting'
    wait(sim, lambda: call(sim, 'GET',
                           '/volumes/%s' % VOLUME_A).status_int == 404)
    assert pool(sim, FAST1)['allocated_capacity_gb'] == 25.0
    assert sim.cloud.storage.events.types() == [
        'volume.delete.start', 'volume.delete.end', 'capacity.pool']


def test_extend_grows_the_volume_and_its_pool(sim):
    assert action(sim, VOLUME_A, {'os-extend': {'new_size': 5}}
                  ).status_int == 400
    refused = action(sim, VOLUME_B, {'os-extend': {'new_size': 30}},
                     version='3.41')
    assert refused.status_int == 400
    assert action(sim, VOLUME_B, {'os-extend': {'new_size': 30}}
                  ).status_int == 202
    assert volume(sim, VOLUME_B)['status'] == 'extending'
    wait(sim, lambda: volume(sim, VOLUME_B)['status'] == 'in-use')
    assert volume(sim, VOLUME_B)['size'] == 30
    assert pool(sim, FAST1)['allocated_capacity_gb'] == 45.0
    resize = [d for e, _p, d in sim.cloud.storage.events.sent
              if e == 'volume.resize.end']
    assert resize[0]['size'] == 30


# Pools, types, services.

def test_pools_report_capacity_from_their_volumes(sim):
    caps = pool(sim, FAST1)
    assert (caps['total_capacity_gb'], caps['allocated_capacity_gb'],
            caps['free_capacity_gb'], caps['provisioned_capacity_gb'],
            caps['total_volumes'], caps['volume_backend_name'],
            caps['pool_name']) == (100.0, 35.0, 65.0, 35.0, 3, 'fast', 'p1')
    assert pool(sim, SLOW)['thin_provisioning_support'] is True
    names = call(sim, 'GET', '/scheduler-stats/get_pools').json['pools']
    assert names == [{'name': FAST1}, {'name': FAST2}, {'name': SLOW}]
    typed = call(sim, 'GET', '/scheduler-stats/get_pools?volume_type=slow')
    assert typed.json['pools'] == [{'name': SLOW}]


def test_types_and_services(sim):
    types = {t['name']: t for t in call(sim, 'GET', '/types').json[
        'volume_types']}
    assert types['fast']['extra_specs'] == {'volume_backend_name': 'fast'}
    assert types['any']['extra_specs'] == {}
    shown = call(sim, 'GET', '/types/%s' % types['slow']['id'])
    assert shown.json['volume_type']['name'] == 'slow'
    assert call(sim, 'GET', '/types/slow').status_int == 404
    services = call(sim, 'GET', '/os-services?binary=cinder-volume').json[
        'services']
    assert [(s['host'], s['zone'], s['status'], s['state'],
             s['backend_state']) for s in services] == [
        ('stor1@fast', 'nova', 'enabled', 'up', 'up'),
        ('stor2@fast', 'nova', 'enabled', 'up', 'up'),
        ('stor3@slow', 'nova', 'enabled', 'up', 'up')]
    sim.faults.configure({'storage_backends_down': ['stor2@fast']})
    services = call(sim, 'GET', '/os-services?host=stor2@fast').json[
        'services']
    assert [s['state'] for s in services] == ['down']


# Migrations and retypes.

def migrate(sim, ident, host, version='3.60'):
    return action(sim, ident, {'os-migrate_volume': {
        'host': host, 'force_host_copy': False, 'lock_volume': False}},
        version=version)


def test_a_migration_moves_the_volume_in_steps(sim):
    seen = [volume(sim, VOLUME_A)['migration_status']]
    assert migrate(sim, VOLUME_A, FAST2).status_int == 202
    for _step in range(2500):
        if seen[-1] == 'success':
            break
        seen.append(volume(sim, VOLUME_A)['migration_status'])
        sim.clock.advance(0.002)
    steps = [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s]
    assert steps == [None, 'starting', 'migrating', 'completing', 'success']
    moved = volume(sim, VOLUME_A)
    assert (moved['os-vol-host-attr:host'], moved['status']) == (
        FAST2, 'available')
    assert pool(sim, FAST1)['allocated_capacity_gb'] == 25.0
    assert pool(sim, FAST2)['allocated_capacity_gb'] == 10.0
    [record] = simulator_state(sim)['volume_migrations']
    assert (record['volume'], record['kind'], record['source'],
            record['dest'], record['status']) == (
        VOLUME_A, 'migrate', FAST1, FAST2, 'success')
    # Cinder tells nothing of a migration but the pools' capacity.
    assert set(sim.cloud.storage.events.types()) == {'capacity.pool'}


def test_a_migration_cinder_refuses(sim):
    for host in ('stor9@fast#p1', 'stor1@nope#p1'):
        resp = migrate(sim, VOLUME_A, host)
        assert resp.status_int == 400
        assert resp.json['badRequest']['message'] == (
            "Invalid host: No available service named '%s'" % host)
    same = migrate(sim, VOLUME_A, FAST1)
    assert 'must be different than the current' in same.json[
        'badRequest']['message']
    assert migrate(sim, VOLUME_A, FAST2).status_int == 202
    again = migrate(sim, VOLUME_A, SLOW)
    assert 'must not be migrating' in again.json['badRequest']['message']
    sim.faults.configure({'storage_backends_down': ['stor3@slow']})
    wait(sim, lambda: volume(sim, VOLUME_A)['migration_status'] == 'success')
    assert migrate(sim, VOLUME_A, SLOW).status_int == 400
    assert len(simulator_state(sim)['volume_migrations']) == 1


def test_a_failing_migration_leaves_the_volume_where_it_was(sim):
    sim.faults.configure({'fail_volume_migrations': [VOLUME_A]})
    assert migrate(sim, VOLUME_A, FAST2).status_int == 202
    wait(sim, lambda: volume(sim, VOLUME_A)['migration_status'] == 'error')
    found = volume(sim, VOLUME_A)
    assert (found['os-vol-host-attr:host'], found['status'],
            found['os-vol-mig-status-attr:migstat']) == (
        FAST1, 'available', 'error')
    assert pool(sim, FAST2)['allocated_capacity_gb'] == 0.0
    # The fault was for one migration: the next one succeeds.
    assert migrate(sim, VOLUME_A, FAST2).status_int == 202
    wait(sim, lambda: volume(sim, VOLUME_A)['migration_status'] == 'success')
    assert [m['status'] for m in simulator_state(sim)[
        'volume_migrations']] == ['error', 'success']


def test_an_attached_volume_migrates_only_while_its_server_runs(sim):
    assert migrate(sim, VOLUME_B, FAST2).status_int == 202
    assert migrate(sim, VOLUME_C, FAST2).status_int == 202
    wait(sim, lambda: volume(sim, VOLUME_B)['migration_status'] == 'success')
    wait(sim, lambda: volume(sim, VOLUME_C)['migration_status'] == 'error')
    assert volume(sim, VOLUME_B)['status'] == 'in-use'
    assert volume(sim, VOLUME_C)['os-vol-host-attr:host'] == FAST1


def test_a_retype_migrates_on_demand_to_a_pool_of_the_new_type(sim):
    assert action(sim, VOLUME_A, {'os-retype': {'new_type': 'slow'}}
                  ).status_int == 202
    assert volume(sim, VOLUME_A)['status'] == 'retyping'
    # The policy is never: it stays as it was.
    wait(sim, lambda: volume(sim, VOLUME_A)['status'] == 'available')
    assert volume(sim, VOLUME_A)['volume_type'] == 'fast'
    assert action(sim, VOLUME_A, {'os-retype': {
        'new_type': 'slow', 'migration_policy': 'on-demand'}}
        ).status_int == 202
    wait(sim, lambda: volume(sim, VOLUME_A)['status'] == 'available')
    found = volume(sim, VOLUME_A)
    assert (found['volume_type'], found['os-vol-host-attr:host'],
            found['migration_status']) == ('slow', SLOW, 'success')
    retyped = [d for e, _p, d in sim.cloud.storage.events.sent
               if e == 'volume.retype']
    assert retyped[0]['volume_type'] == sim.cloud.storage.volume_type(
        'slow').id
    assert [(m['kind'], m['status']) for m in simulator_state(sim)[
        'volume_migrations']] == [('retype', 'error'), ('retype', 'success')]


def test_a_retype_in_place_and_the_refused_ones(sim):
    assert action(sim, VOLUME_A, {'os-retype': {'new_type': 'any'}}
                  ).status_int == 202
    wait(sim, lambda: volume(sim, VOLUME_A)['volume_type'] == 'any')
    found = volume(sim, VOLUME_A)
    assert (found['os-vol-host-attr:host'], found['status'],
            found['migration_status']) == (FAST1, 'available', None)
    same = action(sim, VOLUME_A, {'os-retype': {'new_type': 'any'}})
    assert 'has to be different' in same.json['badRequest']['message']
    unknown = action(sim, VOLUME_A, {'os-retype': {'new_type': 'gold'}})
    assert unknown.json['badRequest']['message'] == (
        'Invalid input received: Invalid volume_type passed: gold.')


# Attachments.

def test_attach_complete_and_detach_a_volume(sim):
    server = next(uuid for uuid, s in sim.cloud.servers.items()
                  if s.name == 'vm-a')
    assert call(sim, 'POST', '/attachments', {'attachment': {
        'volume_uuid': VOLUME_A, 'instance_uuid': server}},
        version='3.26').status_int == 404
    made = call(sim, 'POST', '/attachments', {'attachment': {
        'volume_uuid': VOLUME_A, 'instance_uuid': server}})
    assert made.status_int == 200, made.text
    attachment = made.json['attachment']
    assert (attachment['status'], attachment['instance'],
            attachment['connection_info']) == ('reserved', server, None)
    assert volume(sim, VOLUME_A)['status'] == 'reserved'
    again = call(sim, 'POST', '/attachments', {'attachment': {
        'volume_uuid': VOLUME_A, 'instance_uuid': server}})
    assert again.status_int == 400
    updated = call(sim, 'PUT', '/attachments/%s' % attachment['id'], {
        'attachment': {'connector': {'host': 'compute-0'}}})
    assert updated.json['attachment']['status'] == 'attaching'
    completed = call(sim, 'POST', '/attachments/%s/action'
                     % attachment['id'], {'os-complete': None})
    assert completed.status_int == 204
    found = volume(sim, VOLUME_A)
    assert found['status'] == 'in-use'
    assert [a['attachment_id'] for a in found['attachments']] == [
        attachment['id']]
    removed = call(sim, 'DELETE', '/attachments/%s' % attachment['id'])
    assert removed.json == {'attachments': []}
    assert volume(sim, VOLUME_A)['status'] == 'available'
    assert sim.cloud.storage.events.types() == [
        'volume.attach.start', 'volume.attach.end', 'volume.detach.start',
        'volume.detach.end']
    attached = sim.cloud.storage.events.sent[1][2]['volume_attachment']
    assert (attached[0]['instance_uuid'], attached[0]['id']) == (
        server, attachment['id'])


def test_deleting_a_server_detaches_its_volumes(sim):
    server = next(uuid for uuid, s in sim.cloud.servers.items()
                  if s.name == 'vm-a')
    sim.cloud.delete_server(server)
    found = volume(sim, VOLUME_B)
    assert (found['status'], found['attachments']) == ('available', [])


def test_an_unknown_server_or_volume_is_not_attached(sim):
    assert call(sim, 'POST', '/attachments', {'attachment': {
        'volume_uuid': VOLUME_A, 'instance_uuid': VOLUME_B}}
        ).status_int == 404
    assert call(sim, 'POST', '/attachments', {'attachment': {
        'volume_uuid': 'nope', 'instance_uuid': VOLUME_B}}
        ).status_int == 404


# The wire.

def test_notifications_go_out_as_cinder_sends_them():
    transport = notes.cinder_transport('fake://')
    with notifications_heard(transport, 'openstack') as got:
        found = simulator.Simulator(SPEC, cinder_transport=transport)
        try:
            resp = call(found, 'POST', '/volumes', {'volume': {'size': 1}})
            assert resp.status_int == 202
            until(lambda: any(e == 'capacity.pool' for _p, e, *_ in got),
                  time.sleep)
            assert [(p, e) for p, e, _d, _l in got] == [
                ('volume.stor2@fast', 'volume.create.start'),
                ('volume.stor2@fast', 'volume.create.end'),
                ('capacity.controller', 'capacity.pool')]
            assert set(got[1][2]) == {
                'tenant_id', 'host', 'user_id', 'availability_zone',
                'volume_id', 'volume_type', 'display_name', 'launched_at',
                'created_at', 'status', 'snapshot_id', 'size',
                'replication_status', 'replication_extended_status',
                'replication_driver_data', 'metadata', 'volume_attachment'}
            assert set(got[2][2]) == {'name_to_id', 'total', 'free',
                                      'allocated', 'provisioned',
                                      'virtual_free', 'reported_at'}
        finally:
            found.stop()


# Scenarios.

def test_generated_scenarios_describe_a_storage_deterministically():
    spec = scenario.generate(4, 10, 3, volumes=30)
    assert spec == scenario.generate(4, 10, 3, volumes=30)
    # The servers are those of a scenario without storage.
    assert spec['servers'] == scenario.generate(4, 10, 3)['servers']
    found = simulator.Simulator(spec)
    storage = found.cloud.storage
    assert len(storage.volumes) == 30
    assert sum(storage.allocated(p)[1] for p in storage.pools.values()) \
        == 30
    assert any(v.attachments and v.status == 'in-use'
               for v in storage.volumes.values())


@pytest.mark.parametrize('volume, message', [
    ({'size': 1, 'pool': 'nowhere'}, 'unknown pool nowhere'),
    ({'size': 1, 'pool': FAST1, 'type': 'gold'}, 'gold could not be found'),
    ({'size': 1, 'pool': FAST1, 'attached_to': 'vm-z'},
     'unknown server vm-z'),
])
def test_a_scenario_s_bad_storage_is_refused(volume, message):
    spec = dict(SPEC, storage=dict(SPEC['storage'], volumes=[volume]))
    with pytest.raises(scenario.ScenarioError, match=message):
        scenario.build(spec)
