"""Failover segments written straight to the database, for the tests of
what reads them (the host_recovery strategy, the reserved host claim)."""

from watcher_ha.common import context
from watcher_ha.db import failover_segments


def reserved_host_segment(hosts, reserved):
    """A reserved_host segment 'seg' of the compute ``hosts`` and the
    ``reserved`` ones: its row."""
    ctx = context.admin_context()
    made = failover_segments.create_segment(ctx, {
        'name': 'seg', 'service_type': 'COMPUTE',
        'recovery_method': 'reserved_host'})
    for name in tuple(hosts) + tuple(reserved):
        failover_segments.create_host(ctx, made['uuid'], {
            'name': name, 'type': 'COMPUTE', 'control_attributes': '',
            'reserved': name in reserved})
    return made
