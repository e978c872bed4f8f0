"""Placement's resource class names, and what a flavor asks Placement
for."""

import json

import pytest

from tests import reference_data
from watcher_ha.common import resources


@pytest.mark.parametrize('name', ['VCPU', 'MEMORY_MB', 'DISK_GB', 'PCPU',
                                  'VGPU', 'SRIOV_NET_VF', 'CUSTOM_GPU',
                                  'CUSTOM_A_100_80GB'])
def test_classes_placement_knows(name):
    assert resources.is_class(name)


@pytest.mark.parametrize('name', ['vcpu', 'GPU', 'CUSTOM_', 'CUSTOM_gpu',
                                  'CUSTOM-GPU', 'VCPUS', '', 'custom_gpu'])
def test_names_placement_refuses(name):
    assert not resources.is_class(name)


def test_a_flavors_resources_extra_specs_override_and_add():
    flavor = {'VCPU': 4, 'MEMORY_MB': 4096, 'DISK_GB': 20}
    assert resources.requested(flavor, {}) == flavor
    assert resources.requested(flavor, {
        'resources:VCPU': '0', 'resources:PCPU': '4',
        'resources:CUSTOM_GPU': '2', 'hw:cpu_policy': 'dedicated',
        # Neither a class nor a whole number: Nova refuses them.
        'resources:gpu': '1', 'resources:VGPU': 'two'}) == {
        'PCPU': 4, 'MEMORY_MB': 4096, 'DISK_GB': 20, 'CUSTOM_GPU': 2}



def test_the_standard_classes_are_os_resource_classes():
    reference = json.loads((reference_data.ROOT / 'os-resource-classes'
                            / 'standards.json').read_text())
    assert list(resources.STANDARD_CLASSES) == reference['standards']
    assert resources.CUSTOM_CLASS.startswith(reference['custom_namespace'])
