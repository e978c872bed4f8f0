"""What the compute model knows of a server beyond its flavor, read from
the simulator through novaclient and Placement: when Nova created it, and
what Placement allocates to it of every resource class (a custom class
too), at a full read and when one host's servers are read again."""

from tests.functional import services
from watcher_ha.decision_engine.model.collector import manager as \
    collector_manager
from watcher_ha.simulator import scenario

SPEC = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'flavors': [
        {'id': '1', 'name': 'gpu', 'vcpus': 2, 'ram': 2048, 'disk': 10,
         'extra_specs': {'resources:CUSTOM_GPU': '1',
                         'lifecycle:preemptable': 'true'}},
        {'id': '2', 'name': 'plain', 'vcpus': 1, 'ram': 512, 'disk': 5}],
    'hosts': [{'name': 'h1', 'vcpus': 16, 'memory_mb': 65536,
               'disk_gb': 100, 'inventory': {'CUSTOM_GPU': 4}}],
    'servers': [
        {'name': 'old-gpu', 'flavor': 'gpu', 'host': 'h1', 'age': 7200},
        {'name': 'volume', 'flavor': 'plain', 'host': 'h1',
         'boot_from_volume': True}],
}


def by_name(snapshot):
    return {i.name: i for i in snapshot.instances.values()}


def test_full_read_and_host_read_give_allocations_and_age(tmp_path,
                                                          nova_conf):
    with services.simulator(tmp_path, SPEC) as url:
        nova_conf(url)
        collectors = collector_manager.CollectorManager(['compute'])
        collectors.resync('compute')
        model = collectors.model('compute')
        servers = by_name(model.snapshot())
        gpu = servers['old-gpu']
        assert dict(gpu.allocations) == {
            'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 10, 'CUSTOM_GPU': 1}
        assert gpu.allocation('CUSTOM_GPU') == 1
        assert gpu.allocation('VGPU') == 0
        assert gpu.flavor_extra_specs_dict['lifecycle:preemptable'] == \
            'true'
        # Booted from a volume: Placement holds no disk, whatever the
        # flavor says.
        assert servers['volume'].allocation('DISK_GB') == 0
        assert servers['volume'].disk_gb == 5
        age = servers['volume'].created_at - gpu.created_at
        assert 7190 <= age.total_seconds() <= 7210
        # Read again, one host's servers keep what Placement says.
        collectors.refresh_servers('compute', 'h1')
        again = by_name(model.snapshot())
        assert again['old-gpu'].stamp > gpu.stamp
        assert again['old-gpu'].allocations == gpu.allocations
        assert again['old-gpu'].created_at == gpu.created_at
