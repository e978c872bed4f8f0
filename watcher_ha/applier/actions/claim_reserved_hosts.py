"""claim_reserved_hosts: hold the reserved hosts a recovery needs (the
action's name is Watcher-API wire; inside, a reserved host is *held*).

The fewest reserved hosts of the segment with room for the failed host's
servers are held for the recovery in the database
(db/reserved_hosts.py: no two recoveries ever share one), then enabled in
Nova so that servers can be rebuilt on them. Each server's
destination is recorded as its pending vmove, which its evacuate action
reads; a server no reserved host has room for is recorded as failed. The
moves are recorded together, in one transaction behind one fence.

What the servers need and what each reserved host has free are read from
Placement when holding them (common/instance_ha/capacity.py), through
the resource providers the plan names (``providers``: {host: provider
uuid}); the data model's figures from when the plan was made
(``servers``: their sizes by flavor; ``capacity``: each reserved host's
room) stand where
Placement cannot say.

With ``join_aggregates``, the hosts held are put in the failed host's
aggregates before they are enabled (cloud/aggregates.py).

Run again (a take-over), it keeps what the recovery holds and holds only
what is still missing too. Not reverted: the recovery's last action gives
back what it did not use.
"""

from keystoneauth1 import exceptions as ks_exc
from oslo_log import log

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import recovery_base
from watcher_ha.cloud import aggregates
from watcher_ha.cloud import clients
from watcher_ha.common.instance_ha import capacity
from watcher_ha.common.instance_ha import packing
from watcher_ha.db import reserved_hosts
from watcher_ha.db import vmoves

LOG = log.getLogger(__name__)

_SIZE = {'type': 'object',
         'properties': {r: {'type': 'number', 'minimum': 0}
                        for r in packing.RESOURCES},
         'required': list(packing.RESOURCES)}


class ClaimReservedHosts(recovery_base.RecoveryAction):
    name = 'claim_reserved_hosts'
    description = ("Claims for a recovery the fewest reserved hosts of "
                   "the failed host's segment that hold its servers.")
    schema = recovery_base.schema(
        optional={
            'providers': {'type': 'object', 'additionalProperties': {
                'type': 'string', 'minLength': 1}},
            'join_aggregates': {'type': 'boolean'}},
        servers={'type': 'object', 'additionalProperties': _SIZE},
        capacity={'type': 'object', 'additionalProperties': _SIZE})

    def execute(self):
        params = self.input_parameters
        # Only those still there: an earlier attempt moved the others
        # (the data model the plan was made on may not know it yet).
        left = {server.id for server in self.nova.servers.list(
            search_opts={'host': params['source_node'], 'all_tenants': 1},
            limit=-1)}
        servers = {uuid: packing.Size(**size)
                   for uuid, size in params['servers'].items()
                   if uuid in left}
        servers, room = self._from_placement(servers)
        chosen = {}

        def choose(held, free):
            candidates = {h: room[h] for h in list(held) + list(free)
                          if h in room}
            result = packing.fewest_hosts(
                servers, candidates,
                held=tuple(h for h in held if h in candidates))
            chosen['packing'] = result
            return [h for h in result.hosts if h not in held]

        self.fence()
        held = reserved_hosts.hold(self.context, params['segment_uuid'],
                                   self.notification, choose)
        result = chosen.get('packing')
        if result is None:
            raise base.ActionError('failover segment %s no longer exists'
                                   % params['segment_uuid'])
        if params.get('join_aggregates'):
            # Before the hosts take servers: the scheduler checks the
            # zone of each evacuation's destination.
            try:
                aggregates.join(self.context, self.nova, self.notification,
                                params['source_node'], held)
            except aggregates.AggregateError as err:
                raise base.ActionError(str(err))
        for host in held:
            self.set_service(host, enabled=True)
        moves = {server: {'status': vmoves.PENDING, 'dest_host': host,
                          'message': None}
                 for server, host in result.placement.items()}
        moves.update({server: {'status': vmoves.FAILED,
                               'message': 'no reserved host of the segment '
                                          'has room for it'}
                      for server in result.unplaced})
        self._record(moves)
        if not held and servers:
            raise base.ActionError(
                'no reserved host of segment %s is free for the servers '
                'of %s' % (params['segment_uuid'], params['source_node']))

    def _from_placement(self, servers):
        """``servers`` and the reserved hosts' room, as Placement has
        them now (where it answers; the plan's figures elsewhere)."""
        params = self.input_parameters
        providers = params.get('providers') or {}
        if not providers:
            # A plan made before the plans named them.
            return servers, params['capacity']
        placement = clients.placement()
        source = providers.get(params['source_node'])
        if source is not None:
            servers = capacity.server_sizes(_read(
                placement, '/resource_providers/%s/allocations' % source,
                'what the servers of provider %s hold' % source), servers)
        room = {}
        for host, free in params['capacity'].items():
            provider = providers.get(host)
            path = '/resource_providers/%s/' % provider
            what = 'the room on %s (provider %s)' % (host, provider)
            inventories = provider and _read(
                placement, path + 'inventories', what)
            usages = inventories and _read(placement, path + 'usages', what)
            room[host] = (capacity.free_room(inventories, usages) if usages
                          else dict(free))
        return servers, room

    def _record(self, moves):
        """Record each server's move ({server: values}) at once, behind
        one fence."""
        if not moves:
            return
        self.fence()
        # A move under way or made (the recovery runs again) keeps its
        # record.
        vmoves.record_many(self.context, self.notification, moves,
                           unless=(vmoves.ONGOING, vmoves.SUCCEEDED),
                           source_host=self.input_parameters['source_node'])

    def recover(self, started_at):
        # Claiming again keeps what is held and takes what is missing.
        return base.NOT_DONE


def _read(placement, path, what):
    """Placement's JSON at ``path``, or None (logged) when it cannot
    say."""
    try:
        return placement.get(path).json()
    except (ks_exc.ClientException, ValueError) as err:
        LOG.warning('Placement could not tell %s (%s): the data model\'s '
                    'figures stand', what, err)
        return None
