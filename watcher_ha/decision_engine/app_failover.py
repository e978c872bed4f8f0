"""The applications declared for failover (EVENT audits of the goal
application_availability), as instance HA meets them: a failed host's
members of an application are failed over by the application's own
audit, not evacuated as ordinary servers (doc/source/app_failover.rst).

Read by the host_recovery strategy (which leaves those members out), by
the engine that starts a host's recovery (which triggers those
applications' audits first), and by the engine that gives up on a
member's restarts or ends a process failure of its host (which triggers
its application's audit: the run counts the member failed).
"""

from novaclient import exceptions as nova_exc
from oslo_log import log

from watcher_ha.db import audits

LOG = log.getLogger(__name__)

GOAL = 'application_availability'


def declared(context):
    """[(audit row, server group id)] of the declared applications."""
    return [(row, (row['parameters'] or {}).get('server_group'))
            for row in audits.live_events_of_goal(context, GOAL)
            if (row['parameters'] or {}).get('server_group')]


def members_on(context, nova, host):
    """{server uuid: the audit row of its application} of the members of
    declared applications that Nova places on ``host``. An application
    whose group Nova does not show is logged and left out: its members
    are then recovered as any server."""
    if not declared(context):
        return {}
    return members_among(context, nova, {server.id for server in
                                         nova.servers.list(search_opts={
                                             'host': host,
                                             'all_tenants': True})})


def members_among(context, nova, servers):
    """{server uuid: the audit row of its application} of the members of
    declared applications among ``servers`` (uuids)."""
    found = {}
    for row, group_id in declared(context) if servers else ():
        try:
            group = nova.server_groups.get(group_id)
        except nova_exc.NotFound:
            LOG.warning('Application audit %s names server group %s, which '
                        'Nova does not have', row['uuid'], group_id)
            continue
        for uuid in set(group.members) & set(servers):
            found[uuid] = row
    return found
