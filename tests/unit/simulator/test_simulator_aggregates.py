"""The simulator's host aggregates behave as Nova's os-aggregates API:
adding and removing hosts with Nova's refusals, a host taking the zone of
an aggregate that sets one and falling back when it leaves, an
evacuation kept to the zone its server was booted in, and the
aggregate.add_host / remove_host notifications in Nova's format, which
the data model applies."""

import json

import pytest
import webob

from tests import nova_samples
from tests.helpers.nova_events import event
from tests.helpers.nova_events import model_with
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import notifications
from watcher_ha.simulator import simulator
from watcher_ha.simulator.nova import hosts


class Recorder:
    def __init__(self):
        self.seen = []

    def emit(self, event_type, publisher, server=None, host=None, **extra):
        if event_type.startswith('aggregate.'):
            self.seen.append({
                'event_type': event_type, 'publisher_id': publisher,
                'payload': notifications.aggregate_payload(
                    extra['aggregate'])})


@pytest.fixture
def sim():
    found = simulator.Simulator({
        'evacuate_seconds': 0.05,
        'flavors': [{'id': '1', 'name': 'small', 'vcpus': 1, 'ram': 1024,
                     'disk': 10}],
        'hosts': [
            {'name': 'az1-host', 'vcpus': 8, 'memory_mb': 32768,
             'disk_gb': 500, 'availability_zone': 'az1',
             'aggregates': ['zone-1', 'ssd']},
            {'name': 'az2-host', 'vcpus': 8, 'memory_mb': 32768,
             'disk_gb': 500, 'availability_zone': 'az2',
             'aggregates': ['zone-2']},
            {'name': 'spare', 'vcpus': 8, 'memory_mb': 32768,
             'disk_gb': 500}],
        'servers': [{'name': 'pinned', 'flavor': 'small',
                     'host': 'az1-host', 'pinned_availability_zone': 'az1'}]},
        clock=clock_mod.FakeClock())
    found.cloud.events = Recorder()
    yield found
    found.stop()


def call(sim, method, path, body=None):
    req = webob.Request.blank('/compute/v2.1' + path, method=method,
                              headers={'X-Auth-Token': 'any',
                                       'OpenStack-API-Version':
                                       'compute 2.96'})
    if body is not None:
        req.json = body
    resp = req.get_response(sim)
    return resp.status_int, (resp.json if resp.body else None)


def ids(sim):
    _status, body = call(sim, 'GET', '/os-aggregates')
    return {a['name']: a['id'] for a in body['aggregates']}


def zone_of(sim, host):
    _status, body = call(sim, 'GET', '/os-services?host=%s' % host)
    return body['services'][0]['zone']


def test_listed_with_the_zone_their_members_share(sim):
    _status, body = call(sim, 'GET', '/os-aggregates')
    found = {a['name']: (a['availability_zone'], a['hosts'], a['metadata'])
             for a in body['aggregates']}
    assert found == {
        'zone-1': ('az1', ['az1-host'], {'availability_zone': 'az1'}),
        'ssd': ('az1', ['az1-host'], {'availability_zone': 'az1'}),
        'zone-2': ('az2', ['az2-host'], {'availability_zone': 'az2'})}


def test_a_host_joins_takes_the_zone_and_leaves_it(sim):
    zone_1 = ids(sim)['zone-1']
    status, body = call(sim, 'POST', '/os-aggregates/%d/action' % zone_1,
                        {'add_host': {'host': 'spare'}})
    assert status == 200
    assert body['aggregate']['hosts'] == ['az1-host', 'spare']
    assert zone_of(sim, 'spare') == 'az1'
    status, body = call(sim, 'GET', '/os-aggregates/%d' % zone_1)
    assert body['aggregate']['hosts'] == ['az1-host', 'spare']
    status, body = call(sim, 'POST', '/os-aggregates/%d/action' % zone_1,
                        {'remove_host': {'host': 'spare'}})
    assert (status, body['aggregate']['hosts']) == (200, ['az1-host'])
    # Back in Nova's default zone.
    assert zone_of(sim, 'spare') == 'nova'


@pytest.mark.parametrize('action,aggregate,host,status,message', [
    ('add_host', 'zone-1', 'az1-host', 409,
     'Aggregate {id} already has host az1-host.'),
    ('add_host', 'zone-1', 'az2-host', 409,
     "Cannot add host to aggregate {id}. Reason: One or more hosts "
     "already in availability zone(s) ['az2']."),
    ('add_host', 'zone-1', 'nowhere', 404,
     'Compute host nowhere could not be found.'),
    ('remove_host', 'zone-1', 'spare', 404,
     'Aggregate {id} has no host spare.'),
    ('add_host', None, 'spare', 404, 'Aggregate 99 could not be found.'),
])
def test_nova_refuses(sim, action, aggregate, host, status, message):
    ident = ids(sim)[aggregate] if aggregate else 99
    found, body = call(sim, 'POST', '/os-aggregates/%d/action' % ident,
                       {action: {'host': host}})
    assert found == status
    [fault] = body.values()
    assert fault['message'] == message.format(id=ident)


def test_a_bad_action_is_a_400(sim):
    ident = ids(sim)['zone-1']
    for body in ({'add_host': {}}, {'set_metadata': {}}, {}):
        status, _body = call(sim, 'POST', '/os-aggregates/%d/action'
                             % ident, body)
        assert status == 400


def test_an_evacuation_stays_in_the_zone_its_server_was_booted_in(sim):
    cloud = sim.cloud
    [server] = cloud.servers.values()
    hosts.lose_power(cloud, 'az1-host')
    cloud.update_service('az1-host', forced_down=True)
    status, _body = call(sim, 'POST', '/servers/%s/action' % server.uuid,
                         {'evacuate': {'host': 'spare'}})
    assert status == 200
    # The scheduler refuses the host out of the zone: the conductor's
    # failure, seen on the server.
    assert (server.vm_state, server.host) == ('error', 'az1-host')
    server.vm_state = 'active'
    call(sim, 'POST', '/os-aggregates/%d/action' % ids(sim)['zone-1'],
         {'add_host': {'host': 'spare'}})
    call(sim, 'POST', '/servers/%s/action' % server.uuid,
         {'evacuate': {'host': 'spare'}})
    # evacuate_seconds: the claim, then the rebuild.
    sim.clock.advance(0.05)
    assert server.host == 'spare', 'the evacuation did not end'
    # Rebuilt there, and stopped: an evacuation asked at 2.95 or later.
    assert server.vm_state == 'stopped'


def test_notified_as_nova_does_and_applied_by_the_data_model(sim):
    call(sim, 'POST', '/os-aggregates/%d/action' % ids(sim)['zone-1'],
         {'add_host': {'host': 'spare'}})
    call(sim, 'POST', '/os-aggregates/%d/action' % ids(sim)['ssd'],
         {'add_host': {'host': 'spare'}})
    call(sim, 'POST', '/os-aggregates/%d/action' % ids(sim)['ssd'],
         {'remove_host': {'host': 'spare'}})
    seen = sim.cloud.events.seen
    assert [n['event_type'] for n in seen] == [
        'aggregate.add_host.start', 'aggregate.add_host.end'] * 2 + [
        'aggregate.remove_host.start', 'aggregate.remove_host.end']
    theirs = nova_samples.load(nova_samples.LIVE
                               / 'aggregate.add_host.end.json')['payload']
    for notification in seen:
        ours = notification['payload']
        assert notification['publisher_id'].startswith('nova-api:')
        assert {k: v for k, v in ours.items() if k != 'nova_object.data'} \
            == {k: v for k, v in theirs.items() if k != 'nova_object.data'}
        assert set(ours['nova_object.data']) == set(
            theirs['nova_object.data'])
        json.dumps(ours)
    model = model_with('az1-host', 'spare')
    for notification in seen:
        if notification['event_type'].endswith('.end'):
            model.apply(event(notification))
    node = model.snapshot().node('spare')
    assert (node.aggregates, node.availability_zone) == (
        frozenset({'zone-1'}), 'az1')
