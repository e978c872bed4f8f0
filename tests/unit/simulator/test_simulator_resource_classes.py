"""The simulator's Placement serves classes beyond VCPU, MEMORY_MB and
DISK_GB as Placement does: a host's provider has the inventory its
scenario gives it, a flavor's ``resources:<CLASS>`` extra spec allocates
that class to its servers, the usages count it, an allocation never
shows a class it holds none of, and the scheduler places a server only
where its classes fit. A scenario server's ``age`` dates its creation
back."""

import datetime

import pytest
import webob

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import simulator
from watcher_ha.simulator.nova import model

SPEC = {
    'flavors': [
        {'id': '1', 'name': 'gpu', 'vcpus': 2, 'ram': 2048, 'disk': 10,
         'extra_specs': {'resources:CUSTOM_GPU': '2',
                         'resources:VGPU': '1'}},
        {'id': '2', 'name': 'volume', 'vcpus': 1, 'ram': 512, 'disk': 10}],
    'hosts': [
        {'name': 'h1', 'vcpus': 16, 'memory_mb': 65536, 'disk_gb': 100,
         'inventory': {'CUSTOM_GPU': 2, 'VGPU': 4}},
        {'name': 'h2', 'vcpus': 16, 'memory_mb': 65536, 'disk_gb': 100}],
    'servers': [
        {'name': 'trainer', 'flavor': 'gpu', 'host': 'h1', 'age': 7200},
        {'name': 'booted', 'flavor': 'volume', 'host': 'h2',
         'boot_from_volume': True}],
}


@pytest.fixture
def sim():
    found = simulator.Simulator(SPEC, clock=clock_mod.FakeClock())
    yield found
    found.stop()


def get(sim, path):
    resp = webob.Request.blank('/placement' + path, headers={
        'X-Auth-Token': 'any',
        'OpenStack-API-Version': 'placement 1.6'}).get_response(sim)
    assert resp.status_int == 200, resp.text
    return resp.json


def server(sim, name):
    [found] = [s for s in sim.cloud.servers.values() if s.name == name]
    return found


def test_a_host_serves_its_other_classes_and_their_usage(sim):
    h1 = sim.cloud.hosts['h1']
    inventories = get(sim, '/resource_providers/%s/inventories'
                      % h1.uuid)['inventories']
    assert inventories['CUSTOM_GPU']['total'] == 2
    assert inventories['VGPU']['total'] == 4
    usages = get(sim, '/resource_providers/%s/usages' % h1.uuid)['usages']
    assert usages == {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10,
                      'CUSTOM_GPU': 2, 'VGPU': 1}
    h2 = sim.cloud.hosts['h2']
    assert 'CUSTOM_GPU' not in get(
        sim, '/resource_providers/%s/inventories' % h2.uuid)['inventories']


def test_allocations_hold_the_classes_the_flavor_asks_for(sim):
    h1, h2 = sim.cloud.hosts['h1'], sim.cloud.hosts['h2']
    trainer = server(sim, 'trainer')
    by_provider = get(sim, '/resource_providers/%s/allocations'
                      % h1.uuid)['allocations']
    assert by_provider == {trainer.uuid: {'resources': {
        'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10, 'CUSTOM_GPU': 2,
        'VGPU': 1}}}
    by_consumer = get(sim, '/allocations/%s' % trainer.uuid)['allocations']
    assert by_consumer[h1.uuid]['resources']['CUSTOM_GPU'] == 2
    # Booted from a volume, no ephemeral disk: no DISK_GB at all, as
    # Placement never holds 0 of a class.
    booted = server(sim, 'booted')
    assert get(sim, '/allocations/%s' % booted.uuid)['allocations'][
        h2.uuid]['resources'] == {'VCPU': 1, 'MEMORY_MB': 512}


def test_a_server_goes_only_where_its_classes_fit(sim):
    # h1's two CUSTOM_GPU are taken, h2 has none.
    with pytest.raises(model.Refused, match='No valid host'):
        sim.cloud.create_server('second', 'gpu')
    sim.cloud.delete_server(server(sim, 'trainer').uuid)
    sim.cloud.create_server('second', 'gpu')
    assert server(sim, 'second').host == 'h1'


def test_a_scenario_server_is_as_old_as_its_age(sim):
    now = sim.cloud.clock.now()
    assert now - server(sim, 'trainer').created_at == \
        datetime.timedelta(hours=2)
    assert server(sim, 'booted').created_at == now
