"""scenario.from_data_model: the simulator's import of what a decision
engine's compute model shows through ``GET /v1/data_model`` (the
listing the API serves, made from a model by hand), built into a
simulated cloud."""

import json

from tests import strategy_clusters as clusters
from watcher_ha.decision_engine.model import listing
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator


def model():
    """Three hosts of differing sizes, reserved amounts, ratios, status
    and state; servers of two sizes (one twice) in several states, one
    locked, one with metadata."""
    return clusters.build(
        [clusters.node('big', vcpus=32, memory_mb=131072, disk_gb=2000,
                       vcpu_reserved=2, memory_mb_reserved=4096,
                       disk_gb_reserved=100, vcpu_ratio=4.0,
                       memory_ratio=1.25, disk_ratio=1.5),
         clusters.node('small', vcpus=8, memory_mb=16384, disk_gb=400,
                       status='disabled', disabled_reason='maintenance'),
         clusters.node('dead', vcpus=8, memory_mb=16384, disk_gb=400,
                       state='down'),
         clusters.node('empty', vcpus=16)],
        [clusters.server('a', 'big', vcpus=4, memory_mb=8192, disk_gb=80,
                         metadata=(('HA_Enabled', 'True'),)),
         clusters.server('b', 'big', vcpus=1, memory_mb=2048, disk_gb=20,
                         state='stopped', locked=True),
         clusters.server('c', 'small', vcpus=4, memory_mb=8192,
                         disk_gb=80, state='paused'),
         clusters.server('d', 'dead', vcpus=1, memory_mb=2048, disk_gb=20,
                         state='resized')])


def imported():
    # Through JSON, as the CLI reads the API's answer.
    entries = json.loads(json.dumps(listing.entries(model())))
    return scenario.from_data_model(entries)


def built(spec):
    return simulator.Simulator(spec, clock=clock_mod.FakeClock()).cloud


def test_hosts_have_the_models_capacity_ratios_and_service():
    cloud = built(imported())
    assert sorted(cloud.hosts) == ['big', 'dead', 'empty', 'small']
    big = cloud.hosts['big']
    assert (big.vcpus, big.memory_mb, big.disk_gb) == (32, 131072, 2000)
    assert (big.vcpu_reserved, big.memory_mb_reserved,
            big.disk_gb_reserved) == (2, 4096, 100)
    assert (big.vcpu_ratio, big.memory_ratio, big.disk_ratio) == (
        4.0, 1.25, 1.5)
    state = model()
    for name, host in cloud.hosts.items():
        node = state.node(name)
        # What Placement can give, as the engine counts it.
        for resource in ('vcpus', 'memory_mb', 'disk_gb'):
            assert host.capacity(resource) == node.capacity(resource)
        assert (host.status, host.state) == (node.status, node.state)
    assert cloud.hosts['small'].disabled_reason == 'maintenance'
    assert cloud.hosts['dead'].forced_down


def test_servers_are_on_the_same_hosts_with_the_same_sizes_and_states():
    cloud = built(imported())
    state = model()
    assert sorted(cloud.servers) == sorted(
        i.uuid for i in state.instances.values())
    for uuid, server in cloud.servers.items():
        instance = state.instance(uuid)
        assert server.host == instance.host
        assert server.name == instance.name
        assert server.tenant_id == instance.project_id
        assert server.needs() == {'vcpus': instance.vcpus,
                                  'memory_mb': instance.memory_mb,
                                  'disk_gb': instance.disk_gb}
    servers = cloud.servers
    assert servers['uuid-a'].metadata == {'HA_Enabled': 'True'}
    assert (servers['uuid-a'].status, servers['uuid-a'].power_state) == (
        'ACTIVE', 1)
    assert servers['uuid-b'].locked
    assert (servers['uuid-b'].status, servers['uuid-b'].power_state) == (
        'SHUTOFF', 4)
    assert (servers['uuid-c'].status, servers['uuid-c'].power_state) == (
        'PAUSED', 3)
    # Waiting for its resize's confirmation: neither its old flavor nor
    # its source are shown, so it is imported as running.
    assert servers['uuid-d'].status == 'ACTIVE'


def test_each_host_uses_what_the_model_counts():
    cloud = built(imported())
    state = model()
    for name in cloud.hosts:
        assert cloud.used(name) == {
            resource: sum(getattr(i, resource)
                          for i in state.instances_on(name))
            for resource in ('vcpus', 'memory_mb', 'disk_gb')}


def test_a_flavor_per_size_of_server():
    spec = imported()
    assert sorted((f['vcpus'], f['ram'], f['disk'])
                  for f in spec['flavors']) == [(1, 2048, 20),
                                                (4, 8192, 80)]
    assert len({f['name'] for f in spec['flavors']}) == 2
    assert len({f['id'] for f in spec['flavors']}) == 2
    cloud = built(spec)
    assert cloud.servers['uuid-a'].flavor is cloud.servers['uuid-c'].flavor


def test_the_scenario_survives_yaml(tmp_path):
    spec = imported()
    path = tmp_path / 'cloud.yaml'
    scenario.dump(spec, str(path))
    assert scenario.load(str(path)) == spec
