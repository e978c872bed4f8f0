"""Placement's resource classes that watcher_ha counts, and the names the
amounts of each have here (on flavors, compute nodes and packings); the
names Placement accepts for a class; and what a flavor asks Placement
for."""

import re

RESOURCE_CLASSES = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb',
                    'DISK_GB': 'disk_gb'}
RESOURCES = tuple(RESOURCE_CLASSES.values())

# The standard classes every Placement knows, as the os-resource-classes
# library lists them (openstack/os-resource-classes 70df847, 1.1.0 and
# after; its order is that of Placement's database ids). Any other class
# is a custom one: CUSTOM_ then upper-case letters, digits and
# underscores, as Placement's API schema for a class name has it.
STANDARD_CLASSES = (
    'VCPU', 'MEMORY_MB', 'DISK_GB', 'PCI_DEVICE', 'SRIOV_NET_VF',
    'NUMA_SOCKET', 'NUMA_CORE', 'NUMA_THREAD', 'NUMA_MEMORY_MB',
    'IPV4_ADDRESS', 'VGPU', 'VGPU_DISPLAY_HEAD',
    'NET_BW_EGR_KILOBIT_PER_SEC', 'NET_BW_IGR_KILOBIT_PER_SEC', 'PCPU',
    'MEM_ENCRYPTION_CONTEXT', 'FPGA', 'PGPU',
    'NET_PACKET_RATE_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC',
    'NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC',
)
CUSTOM_CLASS = r'CUSTOM_[A-Z0-9_]+'
# A class name: a standard one, or a custom one (a regular expression,
# to be anchored by whoever uses it).
CLASS_NAME = '(%s|%s)' % ('|'.join(STANDARD_CLASSES), CUSTOM_CLASS)
_CLASS_NAME = re.compile('^%s$' % CLASS_NAME)

# A flavor's extra spec that asks Placement for an amount of a class.
REQUEST_PREFIX = 'resources:'


def is_class(name):
    """Whether ``name`` is a resource class Placement can know."""
    return bool(_CLASS_NAME.match(name))


def requested(amounts, extra_specs):
    """{class: amount} that a server of a flavor asks Placement for, as
    Nova builds its request: ``amounts`` ({class: amount}, the flavor's
    own: VCPU, MEMORY_MB, DISK_GB), each overridden (or another class
    added) by a ``resources:<CLASS>`` extra spec. An extra spec that is
    no class or no whole number is not counted: Nova refuses such a
    flavor."""
    found = dict(amounts)
    for key, value in (extra_specs or {}).items():
        if not key.startswith(REQUEST_PREFIX):
            continue
        name = key[len(REQUEST_PREFIX):]
        try:
            amount = int(value)
        except (TypeError, ValueError):
            continue
        if is_class(name) and amount >= 0:
            found[name] = amount
    return {name: amount for name, amount in found.items() if amount}
