"""What a server of the model holds in Placement, per resource class."""

from watcher_ha.decision_engine.model import elements


def test_a_server_holds_what_placement_says_else_what_its_flavor_asks():
    server = elements.Instance(
        uuid='u', vcpus=2, memory_mb=2048, disk_gb=20,
        flavor_extra_specs=elements.frozen_mapping(
            {'resources:CUSTOM_GPU': '1'}))
    assert [server.allocation(c) for c in (
        'VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_GPU', 'VGPU')] == \
        [2, 2048, 20, 1, 0]
    read = elements.Instance(
        uuid='u', vcpus=2, memory_mb=2048, disk_gb=20,
        allocations=elements.frozen_mapping({'VCPU': 2, 'MEMORY_MB': 2048}))
    # Booted from a volume: Placement holds no disk for it.
    assert read.allocation('DISK_GB') == 0
    assert read.allocation('CUSTOM_GPU') == 0
