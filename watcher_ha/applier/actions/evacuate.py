"""evacuate: rebuild a server of a failed compute host on another host.

Nova evacuates a server only once its host's compute service is down
(reported down, or forced down: the recovery's force_host_down comes
first). The server is rebuilt on ``destination_node`` (a reserved host
its recovery claimed) or where Nova's scheduler puts it, and the action
waits until it rests there. From compute API 2.95 Nova leaves an
evacuated server stopped: a server that ran when its host failed (Nova
still shows it ACTIVE) is started again, so that it ends as it was.

With a ``notification_uuid``, the move is recorded as a vmove of that
notification (the instance-ha API shows them), through the fence like any
other write of the action.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.db import models
from watcher_ha.db import vmoves

CONF = cfg.CONF

# Statuses Nova evacuates from (its vm_states active, stopped, error).
EVACUABLE = ('ACTIVE', 'SHUTOFF', 'ERROR')
RESTING = ('ACTIVE', 'SHUTOFF')


class Evacuate(nova_base.ServerMove):
    name = 'evacuate'
    description = ('Rebuilds a server of a failed compute host on another '
                   'host.')
    schema = {
        'type': 'object',
        'properties': {
            'resource_id': {'type': 'string', 'minLength': 1},
            'resource_name': {'type': ['string', 'null']},
            'source_node': {'type': 'string', 'minLength': 1},
            'destination_node': {'type': ['string', 'null']},
            'notification_uuid': {'type': ['string', 'null']},
            # The destination is the reserved host the recovery's claim
            # chose for the server (its vmove), not destination_node.
            'destination_from_claim': {'type': 'boolean'},
        },
        'required': ['resource_id', 'source_node'],
        'additionalProperties': True,
    }

    # Its failed host: no other plan could use it.
    holds_source = False
    # One server Nova will not evacuate must not keep the others on a
    # dead host: they go on, and the recovery's attempt ends failed.
    failure_is_contained = True

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        # Whether the server ran when its host failed; None until read.
        self._was_running = None
        # The server's move in the recovery, as this action found it;
        # None until read, {} if there is none.
        self._move = None

    def _recorded(self):
        """The move of the server in its recovery as it was when this
        action first looked (the claim recorded its destination; an
        earlier run whether it ran); {} outside a recovery."""
        if self._move is None:
            notification = self.input_parameters.get('notification_uuid')
            self._move = (vmoves.of_server(
                self.context, notification, self.uuid) or {}) \
                if notification else {}
        return self._move

    @property
    def destination(self):
        if not self.input_parameters.get('destination_from_claim'):
            return self.input_parameters.get('destination_node')
        # Chosen by the claim, which ran before this action.
        move = self._recorded()
        if move.get('dest_host') is None:
            raise base.ActionError(
                'the recovery found no reserved host with room for '
                'server %s' % self.uuid)
        return move['dest_host']

    def _ran(self, server):
        """Whether the server ran when its host failed: as recorded when
        its evacuation began (by an earlier run or attempt: after the
        evacuation it is stopped, or in ERROR), else as Nova shows it."""
        recorded = self._recorded().get('was_running')
        if recorded is not None:
            return recorded
        return server.status == 'ACTIVE'

    def pre_condition(self):
        # A task under way (an evacuation an earlier attempt started):
        # what it ends in decides.
        server = self.wait_for(self._rested_anywhere,
                               CONF.watcher_applier.migration_timeout,
                               'server %s to settle' % self.uuid)
        self._was_running = self._ran(server)
        if nova_base.host_of(server) != self.source:
            return      # moved already: execute finds it done
        if server.status not in EVACUABLE:
            raise base.ActionError(
                'server %s is %s: Nova evacuates only %s servers'
                % (self.uuid, server.status, ', '.join(EVACUABLE)))

    def execute(self):
        server = self.server(self.uuid)
        if self._was_running is None:
            self._was_running = self._ran(server)
        if nova_base.host_of(server) == self.source:
            self._record(vmoves.ONGOING, start_time=models.utcnow(),
                         was_running=self._was_running)
            try:
                self.nova.servers.evacuate(server, host=self.destination)
            except nova_exc.ClientException as err:
                self._failed('Nova refused to evacuate server %s from %s: '
                             '%s' % (self.uuid, self.source, err))
        try:
            server = self._arrived()
        except base.ActionError as err:
            self._failed(str(err))
        self._restart(server)
        self._record(vmoves.SUCCEEDED, end_time=models.utcnow(),
                     dest_host=nova_base.host_of(server))

    def _arrived(self):
        """Wait until the server rests off its failed host."""
        server = self.wait_for(self._rested, CONF.watcher_applier
                               .migration_timeout,
                               'the evacuation of server %s' % self.uuid)
        where = nova_base.host_of(server)
        if where == self.source:
            fault = (getattr(server, 'fault', None) or {}).get('message')
            raise base.ActionError('the evacuation of server %s failed: it '
                                   'is still on %s%s' % (
                                       self.uuid, where,
                                       ' (Nova: %s)' % fault if fault
                                       else ''))
        if self.destination and where != self.destination:
            raise base.ActionError(
                'server %s was rebuilt on %s, not on %s' % (
                    self.uuid, where, self.destination))
        return server

    def _rested(self):
        server = self.server(self.uuid)
        if server.status == 'ERROR' and nova_base.host_of(
                server) != self.source:
            raise base.ActionError('server %s went to ERROR on %s'
                                   % (self.uuid, nova_base.host_of(server)))
        if nova_base.task_of(server) is None and (
                server.status in RESTING or server.status == 'ERROR'):
            if nova_base.host_of(server) != self.source:
                return server
            # Still on its failed host, no task: Nova has not taken the
            # evacuation up yet, or refused it after accepting it.
            return server if self._evacuation_ended() else None
        return None

    def _evacuation_ended(self):
        for migration in self.nova.migrations.list(
                instance_uuid=self.uuid, migration_type='evacuation'):
            if migration.status in ('failed', 'error'):
                return True
        return False

    def _restart(self, server):
        if not self._was_running or server.status != 'SHUTOFF':
            return
        try:
            server.start()
        except nova_exc.ClientException as err:
            self._failed('server %s was evacuated to %s but Nova refused '
                         'to start it again: %s' % (
                             self.uuid, nova_base.host_of(server), err))
        self.wait_for(lambda: self.server(self.uuid).status == 'ACTIVE',
                      CONF.watcher_applier.migration_timeout,
                      'server %s to start on %s' % (
                          self.uuid, nova_base.host_of(server)))

    def _failed(self, message):
        self._record(vmoves.FAILED, end_time=models.utcnow(),
                     message=message)
        raise base.ActionError(message)

    def _record(self, status, **values):
        notification = self.input_parameters.get('notification_uuid')
        if not notification:
            return
        self.fence()
        vmoves.record(self.context, notification, self.uuid, status=status,
                      instance_name=self.input_parameters.get(
                          'resource_name'),
                      source_host=self.source, **values)

    def post_condition(self):
        if nova_base.host_of(self.server(self.uuid)) == self.source:
            raise base.ActionError('server %s is still on %s'
                                   % (self.uuid, self.source))

    def recover(self, started_at):
        """Done once the server rests off its failed host, started again
        if it ran; not done while it rests there idle, so that evacuating
        it again is safe, nor while it rests stopped on its new host
        though it ran (its applier died between the rebuild and the
        start), so that running again starts it."""
        server = self.wait_for(
            lambda: self._rested_anywhere(),
            CONF.watcher_applier.migration_timeout,
            'server %s to settle' % self.uuid)
        if nova_base.host_of(server) == self.source:
            return base.NOT_DONE
        if self.destination and nova_base.host_of(
                server) != self.destination:
            return base.UNKNOWN
        if server.status == 'SHUTOFF' and self._ran(server):
            return base.NOT_DONE
        return base.DONE

    def _rested_anywhere(self):
        server = self.server(self.uuid)
        if nova_base.task_of(server) is None:
            return server
        return None
