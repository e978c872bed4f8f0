"""Placement's resource classes that watcher_ha counts, and the names the
amounts of each have here (on flavors, compute nodes and packings)."""

RESOURCE_CLASSES = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb',
                    'DISK_GB': 'disk_gb'}
RESOURCES = tuple(RESOURCE_CLASSES.values())
