"""migrate: move a server to another compute node, live or cold.

Live: ``os-migrateLive`` (block migration chosen by Nova), then wait until
the server runs on the destination with no task, or is back on its
source (the migration failed: the action fails, the server is where it
was). A live migration still running when the wait runs out of time is
aborted in Nova, so that it does not land after the action has failed.
Cold: ``migrate``, wait for VERIFY_RESIZE, confirm, wait until it is on
the destination; a server that Nova confirmed by itself (its
``resize_confirm_window``) before a poll saw VERIFY_RESIZE has arrived
too. A cold migration whose applier was lost in VERIFY_RESIZE is
confirmed by ``recover()``. Revert moves it back the same way, or
reverts the resize of a server still waiting for its confirmation.

A plan's cancel aborts a live migration in Nova (``DELETE
/servers/{id}/migrations/{migration}``, compute 2.24; a queued one from
2.65): the server stays on its source and the action ends CANCELLED. A
cold migration cannot be aborted: it runs to its end.
"""

import threading

from novaclient import exceptions as nova_exc
from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

CONF = cfg.CONF
LOG = log.getLogger(__name__)

LIVE = 'live'
COLD = 'cold'
# The statuses Nova accepts for each kind of migration.
MOVABLE = {LIVE: ('ACTIVE', 'PAUSED'), COLD: ('ACTIVE', 'SHUTOFF')}


class Migrate(nova_base.ServerMove):
    name = 'migrate'
    description = ('Moves a server to another compute node: live if it '
                   'runs, cold otherwise.')
    schema = base.input_schema(
        {'resource_id': base.NAME, 'resource_name': base.NAME_OR_NULL,
         'migration_type': {'enum': [LIVE, COLD]},
         'source_node': base.NAME, 'destination_node': base.NAME_OR_NULL},
        ['resource_id', 'migration_type', 'source_node'])

    def pre_condition(self):
        server = self.server(self.uuid)
        if nova_base.host_of(server) != self.source:
            raise base.ActionError(
                'server %s is on %s, not on %s: the plan is out of date; '
                'run the audit again' % (self.uuid, nova_base.host_of(server),
                                         self.source))
        kind = self.input_parameters['migration_type']
        if server.status not in MOVABLE[kind]:
            raise base.ActionError(
                'server %s is %s: Nova %s-migrates only %s servers'
                % (self.uuid, server.status, kind,
                   ' or '.join(MOVABLE[kind])))

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        # A cancel and execute's request to Nova, one at a time: a cancel
        # that comes first stops the request; one that comes after
        # aborts what Nova began.
        self._asking = threading.Lock()
        self._executing = False
        self._asked = False

    def execute(self):
        self._executing = True
        self._move(self.source, self.destination)

    def _move(self, source, destination):
        server = self.server(self.uuid)
        kind = self.input_parameters['migration_type']
        try:
            if kind == LIVE:
                with self._asking:
                    if self.cancelled:
                        raise base.ActionError(self.cancelled)
                    self._asked = True
                    server.live_migrate(host=destination,
                                        block_migration='auto')
            else:
                server.migrate(host=destination)
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused the %s migration of %s: %s'
                                   % (kind, self.uuid, err))
        if kind == COLD:
            moved = self.wait_for(lambda: self._resized(source),
                                  CONF.watcher_applier.migration_timeout,
                                  'server %s to be resized' % self.uuid)
            if moved.status == 'VERIFY_RESIZE':
                self._confirm()
        try:
            settled = self.wait_for(lambda: self._settled(),
                                    CONF.watcher_applier.migration_timeout,
                                    'the migration of server %s' % self.uuid)
        except base.ActionError as err:
            if kind == LIVE and not self.aborted:
                # Out of time. Left running, it could still end on the
                # destination after the plan has failed. (Aborted, the
                # applier is stopping: the applier that takes the plan
                # over finds where the migration ended.)
                raise base.ActionError('%s; %s' % (err,
                                                     self._abort_live(source)))
            raise
        where = nova_base.host_of(settled)
        if where == source or (destination and where != destination):
            raise base.ActionError(
                'the %s migration of server %s failed: it is still on %s'
                % (kind, self.uuid, where))

    def _abort_live(self, source):
        """Abort the server's live migrations under way in Nova; what
        came of it, to add to the action's failure."""
        try:
            running = self._abort_under_way()
        except (nova_exc.ClientException, base.ActionError) as err:
            return 'aborting it in Nova failed: %s' % err
        if not running:
            return 'no live migration of it is under way in Nova'
        return ('aborted it in Nova (migration %s): the server stays on '
                '%s' % (', '.join(running), source))

    def _abort_under_way(self):
        """Abort the server's live migrations under way in Nova (each
        call through the fence); the ids of those aborted."""
        server = self.server(self.uuid)
        running = self.nova.server_migrations.list(server)
        for migration in running:
            self.nova.server_migrations.live_migration_abort(
                server, migration.id)
        return [str(m.id) for m in running]

    def cancel(self):
        if self.input_parameters['migration_type'] != LIVE:
            # Nova aborts live migrations only.
            return False
        with self._asking:
            if self._executing and not self._asked:
                # Nova was not asked yet, and now will not be (_move).
                self.cancelled = ('cancelled with its plan before Nova was '
                                  'asked to migrate server %s' % self.uuid)
                return True
        try:
            aborted = self._abort_under_way()
        except (nova_exc.ClientException, base.ActionError) as err:
            # 400: it ended meanwhile, or Nova has not begun it (then the
            # next look tries again).
            LOG.info('Aborting the live migration of server %s refused: '
                     '%s', self.uuid, err)
            return False
        if not aborted:
            return False
        self.cancelled = ('cancelled with its plan: its live migration was '
                          'aborted in Nova (migration %s); the server stays '
                          'on %s' % (', '.join(aborted), self.source))
        return True

    def _resized(self, source):
        """The server once it waits for its resize to be confirmed, or
        is already confirmed (by Nova) elsewhere; None meanwhile."""
        server = self.server(self.uuid)
        if server.status == 'ERROR':
            raise base.ActionError('server %s went to ERROR' % self.uuid)
        if server.status == 'VERIFY_RESIZE':
            return server
        if (server.status in MOVABLE[COLD]
                and nova_base.task_of(server) is None):
            if nova_base.host_of(server) == source:
                raise base.ActionError(
                    'the cold migration of server %s failed: it is still '
                    'on %s' % (self.uuid, source))
            return server
        return None

    def _confirm(self):
        try:
            self.server(self.uuid).confirm_resize()
        except nova_exc.Conflict as err:
            # Nova may have confirmed it meanwhile (resize_confirm_window).
            if self.server(self.uuid).status == 'VERIFY_RESIZE':
                raise base.ActionError('Nova refused to confirm the cold '
                                       'migration of %s: %s'
                                       % (self.uuid, err))

    def _settled(self, verifying_too=False):
        """The server once no task runs on it (None meanwhile); with
        ``verifying_too``, also once it waits for a resize's
        confirmation."""
        server = self.server(self.uuid)
        if server.status == 'ERROR':
            raise base.ActionError('server %s went to ERROR' % self.uuid)
        resting = ('ACTIVE', 'SHUTOFF', 'PAUSED', 'SUSPENDED') + (
            ('VERIFY_RESIZE',) if verifying_too else ())
        if nova_base.task_of(server) is None and server.status in resting:
            return server
        return None

    def revert(self):
        server = self.server(self.uuid)
        if server.status == 'VERIFY_RESIZE':
            # Stopped halfway: the resize is undone, not migrated again
            # (Nova refuses to migrate a server in VERIFY_RESIZE).
            server.revert_resize()
            self.wait_for(lambda: self._settled(),
                          CONF.watcher_applier.migration_timeout,
                          'the resize of server %s to be reverted'
                          % self.uuid)
        elif nova_base.host_of(server) not in (None, self.source):
            self._move(nova_base.host_of(server), self.source)

    def recover(self, started_at):
        server = self.wait_for(lambda: self._settled(verifying_too=True),
                               CONF.watcher_applier.migration_timeout,
                               'server %s to settle' % self.uuid)
        if server.status == 'VERIFY_RESIZE':
            # Interrupted between Nova's move and its confirmation: Nova
            # never confirms by itself unless resize_confirm_window is set
            # (it is 0 by default). The server is on the destination
            # already; confirming it finishes this action.
            if self.destination not in (None, nova_base.host_of(server)):
                return base.UNKNOWN
            self._confirm()
            server = self.wait_for(lambda: self._settled(),
                                   CONF.watcher_applier.migration_timeout,
                                   'the migration of server %s to be '
                                   'confirmed' % self.uuid)
        where = nova_base.host_of(server)
        if where == self.source:
            return base.NOT_DONE
        if self.destination is None or where == self.destination:
            return base.DONE
        return base.UNKNOWN
