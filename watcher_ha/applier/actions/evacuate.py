"""evacuate: rebuild a server of a failed compute host on another host.

Nova evacuates a server only once its host's compute service is down
(reported down, or forced down: the recovery's force_host_down comes
first), and only from the vm_states active, stopped and error. As
Masakari does, a server in another state (paused, suspended, waiting for
its resize to be confirmed, rescued, shelved) is reset to error first
(os-resetState), then evacuated. The server is rebuilt on
``destination_node`` (a reserved host its recovery holds) or where
Nova's scheduler puts it, and the action waits until it rests there.

It then ends in the state it should come back in, as Masakari leaves it
(common/instance_ha/failures.comes_back_as), decided when its evacuation
began and recorded with its move, since the reset and the rebuild lose
it: a server that ran, or a resize whose guest ran, is started again
(from compute API 2.95 Nova leaves an evacuated server stopped, but
starts one that was in error: a server reset first included); the others
are stopped; one that was in error is stopped and reset to error again.

With a ``notification_uuid``, the move is recorded as a vmove of that
notification (the instance-ha API shows them), through the fence like any
other write of the action.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.common.instance_ha import failures
from watcher_ha.db import models
from watcher_ha.db import vmoves

CONF = cfg.CONF

RESTING = ('ACTIVE', 'SHUTOFF')
# The status Nova shows a server in once it is in each state it comes
# back in.
STATUS = {failures.ACTIVE: 'ACTIVE', failures.STOPPED: 'SHUTOFF',
          failures.ERROR: 'ERROR'}


class Evacuate(nova_base.ServerMove):
    name = 'evacuate'
    description = ('Rebuilds a server of a failed compute host on another '
                   'host.')
    schema = base.input_schema({
        'resource_id': base.NAME,
        'resource_name': base.NAME_OR_NULL,
        'source_node': base.NAME,
        'destination_node': base.NAME_OR_NULL,
        'notification_uuid': base.NAME_OR_NULL,
        # The destination is the reserved host the recovery's
        # claim_reserved_hosts action chose for the server (its vmove),
        # not destination_node (the name is wire).
        'destination_from_claim': {'type': 'boolean'},
    }, ['resource_id', 'source_node'])

    # Its failed host: no other plan could use it.
    holds_source = False
    # One server Nova will not evacuate must not keep the others on a
    # dead host: they go on, and the recovery's attempt ends failed.
    failure_is_contained = True

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        # The state the server comes back in; None until read.
        self._comes_back = None
        # The server's move in the recovery, as this action found it;
        # None until read, {} if there is none.
        self._move = None

    def _recorded(self):
        """The move of the server in its recovery as it was when this
        action first looked (claim_reserved_hosts recorded its destination; an
        earlier run the state it comes back in); {} outside a
        recovery."""
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
        # Chosen by claim_reserved_hosts, which ran before this action.
        move = self._recorded()
        if move.get('dest_host') is None:
            raise base.ActionError(
                'the recovery found no reserved host with room for '
                'server %s' % self.uuid)
        return move['dest_host']

    def _comes_back_as(self, server):
        """The state the server comes back in: as recorded when its
        evacuation began (by an earlier run or attempt: reset and
        rebuilt, it says nothing of it any more), else as Nova shows it
        now."""
        recorded = self._recorded().get('restore_state')
        if recorded is not None:
            return recorded
        return failures.comes_back_as(
            nova_base.vm_state(server),
            getattr(server, 'OS-EXT-STS:power_state', None))

    def pre_condition(self):
        # A task under way (an evacuation an earlier attempt started):
        # what it ends in decides.
        server = self.wait_for(self._rested_anywhere,
                               CONF.watcher_applier.migration_timeout,
                               'server %s to settle' % self.uuid)
        self._comes_back = self._comes_back_as(server)
        if nova_base.host_of(server) != self.source:
            return      # moved already: execute brings it back as it was
        refused = failures.not_evacuated(self.uuid,
                                         nova_base.vm_state(server))
        if refused:
            raise base.ActionError(refused)

    def execute(self):
        server = self.server(self.uuid)
        if self._comes_back is None:
            self._comes_back = self._comes_back_as(server)
        if nova_base.host_of(server) == self.source:
            # Recorded before the reset, which loses the server's state.
            self._record(vmoves.ONGOING, start_time=models.utcnow(),
                         restore_state=self._comes_back)
            self._evacuate(server)
        try:
            server = self._arrived()
        except base.ActionError as err:
            self._failed(str(err))
        self._come_back(server)
        self._record(vmoves.SUCCEEDED, end_time=models.utcnow(),
                     dest_host=nova_base.host_of(server))
        if (self._comes_back == failures.ERROR
                and self.server(self.uuid).status != 'ERROR'):
            # After the move is recorded SUCCEEDED: a server in ERROR on
            # its new host is then known to be there by this reset, not
            # by a rebuild that failed (see recover()).
            self._reset_to_error(server)

    def _evacuate(self, server):
        state = nova_base.vm_state(server)
        try:
            if failures.reset_before_evacuation(state):
                self.nova.servers.reset_state(server, 'error')
            self.nova.servers.evacuate(server, host=self.destination)
        except nova_exc.ClientException as err:
            self._failed('Nova refused to evacuate server %s (%s) from %s: '
                         '%s' % (self.uuid, state, self.source, err))

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

    def _come_back(self, server):
        """Start or stop the server, now on its new host, as it should
        come back (one to end in error is stopped first)."""
        try:
            if self._comes_back == failures.ACTIVE:
                if server.status == 'SHUTOFF':
                    self.start_server()
            elif server.status == 'ACTIVE':
                self.stop_server()
        except base.ActionError as err:
            self._failed('server %s was evacuated to %s but could not be '
                         'brought back %s: %s' % (
                             self.uuid, nova_base.host_of(server),
                             self._comes_back, err))

    def _reset_to_error(self, server):
        try:
            self.nova.servers.reset_state(self.uuid, 'error')
        except nova_exc.ClientException as err:
            self._failed('server %s was evacuated to %s and stopped, but '
                         'Nova refused to reset it to error as it was: %s'
                         % (self.uuid, nova_base.host_of(server), err))

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
        """Done once the server rests off its failed host in the state it
        should come back in; not done while it rests there idle, so that
        evacuating it again is safe, nor while it rests on its new host
        otherwise (its applier died between the rebuild and the start,
        stop or reset), so that running again finishes it. A server to
        end in error that is in ERROR on its new host is done only if
        its move was recorded SUCCEEDED: otherwise its rebuild failed
        there, and running again says so."""
        server = self.wait_for(
            lambda: self._rested_anywhere(),
            CONF.watcher_applier.migration_timeout,
            'server %s to settle' % self.uuid)
        if nova_base.host_of(server) == self.source:
            return base.NOT_DONE
        if self.destination and nova_base.host_of(
                server) != self.destination:
            return base.UNKNOWN
        wanted = self._comes_back_as(server)
        if server.status != STATUS[wanted]:
            return base.NOT_DONE
        if wanted == failures.ERROR and self._recorded().get(
                'status') != vmoves.SUCCEEDED:
            return base.NOT_DONE
        return base.DONE

    def _rested_anywhere(self):
        server = self.server(self.uuid)
        if nova_base.task_of(server) is None:
            return server
        return None
