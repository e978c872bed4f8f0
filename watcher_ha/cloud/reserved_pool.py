"""Ending a recovery's hold on the reserved hosts it took, whether it
succeeded or, after its last attempt, failed.

A held host Nova shows servers on keeps them and becomes a normal
host. One that holds none goes back to the segment's pool: its compute
service is disabled again (a reserved host is kept empty), and it leaves
the aggregates the recovery put it in, before its row is reserved again,
so that a recovery holding it next never finds it taking new servers
from the scheduler. Nova, not the recovery's vmoves, says which hosts are
empty: an evacuation that failed on its destination leaves its server
there, in ERROR.

Each step is safe to run again: an owner that dies half way leaves the
rest to the next.
"""

from watcher_ha.cloud import aggregates
from watcher_ha.cloud import compute_services
from watcher_ha.db import reserved_hosts

RESERVED_REASON = 'watcher_ha: reserved host of a failover segment'


def _empty(nova, host):
    return not nova.servers.list(
        search_opts={'host': host, 'all_tenants': 1}, limit=1)


def give_back(context, nova, notification_uuid, fence):
    """End the hold of the recovery of ``notification_uuid`` on its
    reserved hosts; the names of those that went back to the pool.
    ``nova``'s writes and ``fence()`` check that the caller still owns
    the recovery."""
    held = reserved_hosts.held_by(context, notification_uuid)
    unused = [host for host in held if _empty(nova, host)]
    for host in unused:
        compute_services.set_enabled(nova, host, False, RESERVED_REASON)
    aggregates.leave(context, nova, notification_uuid, unused)
    fence()
    reserved_hosts.release(context, notification_uuid, unused)
    reserved_hosts.settle(context, notification_uuid)
    return unused
