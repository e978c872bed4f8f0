"""Nova's evacuate: a server rebuilt on another host because its own is
down, taking the time a rebuild takes, and the record of the evacuations
that made a server run twice.

The steps are Nova's (nova/compute/api.py ``evacuate``, the conductor's
``rebuild_instance``, the destination's ``rebuild_instance`` and
``finish_evacuation``), each with its notifications and its migration
status:

1. nova-api checks, then answers 200: the server is ``rebuilding``
   (REBUILD), an ``evacuation`` migration is ``accepted``.
2. nova-conductor schedules at once (or takes a forced host) and claims the
   destination in Placement. A failure there is no HTTP error, the API
   has answered already: the migration is ``error`` and the server goes to
   ERROR (a forced host without room: keeps its state), with a fault.
3. After ``CLAIM_SHARE`` of the cloud's ``evacuate_seconds`` the
   destination's nova-compute claims (``pre-migrating``) and rebuilds;
   at the end it starts the server there (stops it again, for a server
   that was stopped or an evacuation asked at 2.95 or later, unless it was
   in ERROR), then moves the server to itself: ``done``.

Placement keeps the server's allocation on the source until the source's
nova-compute starts again (hosts.start_compute), as Nova does. A step
whose destination stopped reporting never comes: the server stays in
REBUILD (Nova's cast is never consumed).

When the destination starts the server while its guest still runs on the
source (a partitioned host whose service was merely forced down, or a
fence not yet done), the server runs twice: Nova allows it, the simulator
records it in ``cloud.split_brain``.
"""

from watcher_ha.simulator.nova import model
from watcher_ha.simulator.nova import hosts

# The share of an evacuation's time before the destination starts the
# rebuild (the conductor's cast, the resource claim).
CLAIM_SHARE = 0.1
EVACUABLE = ('active', 'stopped', 'error')
NO_VALID_HOST = 'No valid host was found. There are not enough hosts ' \
                'available.'


def evacuate(cloud, uuid, host=None, force=False, stop=False):
    """Evacuate server ``uuid``, to ``host`` or where the scheduler puts
    it: its migration. With ``force``, ``host`` bypasses the scheduler (a
    host given before 2.29, or with ``force`` from 2.29 to 2.67); with
    ``stop`` (2.95 and later) the server ends stopped."""
    with cloud.lock:
        server = cloud.server(uuid)
        if host is not None and host not in cloud.hosts:
            raise model.Refused(404, 'Compute host %s not found.' % host)
        if host is not None and host == server.host:
            raise model.Refused(400, "The target host can't be the "
                                     "same one.")
        for attr, state, allowed in (
                ('vm_state', server.vm_state, EVACUABLE),
                ('task_state', server.task_state, (None,))):
            if state not in allowed:
                raise model.Refused(
                    409, "Cannot 'evacuate' instance %s while it is in "
                         "%s %s" % (uuid, attr, state))
        source = cloud.hosts.get(server.host)
        if source is None:
            # Nova's service lookup fails, unexpectedly for its API.
            raise model.Refused(500, 'Unexpected API Error. '
                                     "<class 'nova.exception."
                                     "ComputeHostNotFound'>")
        if source.state == 'up':
            raise model.Refused(400, 'Compute service of %s is still '
                                     'in use.' % source.name)
        server.task_state = 'rebuilding'
        cloud._touch(server)
        migration = cloud._migration(server, 'evacuation', host)
        migration.status = 'accepted'
        cloud._emit('instance.evacuate', server, publisher='api')
        _schedule(cloud, server, migration, host, force, stop)
        return migration


def _schedule(cloud, server, migration, host, force, stop):
    """nova-conductor: the destination, claimed in Placement."""
    if force:
        dest = cloud.hosts[host]
        if not cloud.fits(dest, server.needs()):
            _fail(cloud, server, migration, 'No valid host was found. '
                  'Unable to move instance %s to host %s. There is not '
                  'enough capacity on the host for the instance.'
                  % (server.uuid, host), vm_state=server.vm_state)
            return
    else:
        try:
            # The scheduler keeps a server in the zone it asked for.
            zone = server.pinned_availability_zone
            dest = (cloud._check_destination(host, server.needs(),
                                             server.host, zone=zone) if host
                    else cloud._schedule(server.needs(), zone=zone,
                                         exclude=(server.host,)))
        except model.Refused:
            _fail(cloud, server, migration, NO_VALID_HOST, vm_state='error')
            return
    server.evacuating_to = dest.name
    server.availability_zone = dest.availability_zone
    cloud._emit('instance.rebuild_scheduled', server, publisher='conductor')
    if dest.reporting:
        cloud._later(cloud.evacuate_seconds * CLAIM_SHARE, _claim, cloud,
                     server, migration, dest.name, stop)


def _fail(cloud, server, migration, message, vm_state):
    """The conductor's failure: migration ``error``, an instance fault."""
    now = cloud.clock.now()
    migration.status = 'error'
    migration.updated_at = now
    old_state, old_task_state = server.vm_state, server.task_state
    server.vm_state, server.task_state = vm_state, None
    server.fault = {'code': 500, 'message': message, 'created': now}
    cloud._touch(server)
    cloud._emit('instance.update', server, publisher='conductor',
                old_state=old_state, old_task_state=old_task_state)


def _going_on(cloud, server, migration, dest):
    """Whether the evacuation's next step comes: its server is still
    there (deleted: the migration ``failed``) and its destination's
    nova-compute works."""
    if cloud.servers.get(server.uuid) is not server:
        migration.status = 'failed'
        migration.updated_at = cloud.clock.now()
        return False
    return cloud.hosts[dest].reporting


def _claim(cloud, server, migration, dest, stop):
    """The destination's nova-compute starts the rebuild."""
    if not _going_on(cloud, server, migration, dest):
        return
    migration.status, migration.dest = 'pre-migrating', dest
    migration.updated_at = cloud.clock.now()
    cloud._emit('instance.rebuild.start', server, publisher=dest)
    server.task_state = 'rebuild_spawning'
    cloud._touch(server)
    cloud._later(cloud.evacuate_seconds * (1 - CLAIM_SHARE), _finish, cloud,
                 server, migration, dest, stop)


def _finish(cloud, server, migration, dest, stop):
    """The destination starts the server, and takes it (the events still
    name the source: Nova moves the server after rebuild.end)."""
    if not _going_on(cloud, server, migration, dest):
        return
    now = cloud.clock.now()
    source = cloud.hosts[migration.source]
    if not migration.source_cleaned and hosts.guest_running(source, server):
        cloud.split_brain.append({
            'server': server.uuid, 'source': source.name,
            'destination': dest,
            'at': now.isoformat(timespec='milliseconds') + 'Z'})
    was = server.vm_state
    server.vm_state, server.power_state = 'active', 1
    server.task_state = None
    server.launched_at = now
    if was == 'stopped' or (stop and was != 'error'):
        server.task_state = 'powering-off'
        cloud._emit('instance.power_off.start', server, publisher=dest)
        server.vm_state, server.power_state = 'stopped', 4
        server.task_state = None
        cloud._emit('instance.power_off.end', server, publisher=dest)
    cloud._touch(server)
    cloud._emit('instance.rebuild.end', server, publisher=dest)
    if not migration.source_cleaned and source.name not in server.left_on:
        server.left_on = server.left_on + (source.name,)
    server.host = dest
    server.evacuating_to = None
    migration.status = 'done'
    migration.updated_at = now
