"""shelve: shelve a server (Nova's ``shelve`` server action).

Watcher 17 has no action of this name; its parameters are those of
Watcher's ``stop`` (``resource_id``, the server's uuid). Skipped when
there is nothing to shelve: the server is gone, or shelved already
(SHELVED or SHELVED_OFFLOADED). A server Nova does not shelve (neither
ACTIVE, SHUTOFF, PAUSED nor SUSPENDED) fails it. Otherwise Nova is asked
to shelve it and the action waits, within [watcher_applier]
shelve_timeout, until Nova shows it SHELVED_OFFLOADED, or SHELVED when
Nova keeps shelved servers on their host (its shelved_offload_time), with
no task. A shelve cannot be aborted in Nova: an abort stops the wait
only, and the applier that takes the plan over finds where Nova got.

Its revert unshelves the server and waits until it is ACTIVE (Nova
starts a server it unshelves, whatever it was before). After its applier
died, it is done once the server is shelved, and may run again
otherwise: a shelve asked while one is under way is refused by Nova and
counted as this action's own.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

CONF = cfg.CONF

SHELVED = ('SHELVED', 'SHELVED_OFFLOADED')
# The statuses Nova shelves.
SHELVABLE = ('ACTIVE', 'SHUTOFF', 'PAUSED', 'SUSPENDED')
# Nova's task states between a shelve request and its end.
SHELVING = ('shelving', 'shelving_image_pending_upload',
            'shelving_image_uploading', 'shelving_offloading')


class Shelve(nova_base.ServerAction):
    name = 'shelve'
    description = 'Shelves a server.'
    schema = nova_base.ONE_SERVER_SCHEMA

    def pre_condition(self):
        server = self.server_or_skip()
        if server.status in SHELVED:
            raise base.ActionSkipped('server %s is %s already'
                                     % (self.uuid, server.status))
        if server.status not in SHELVABLE:
            raise base.ActionError(
                'server %s is %s: Nova shelves only %s servers'
                % (self.uuid, server.status, ', '.join(SHELVABLE)))

    def execute(self):
        try:
            self.nova.servers.shelve(self.uuid)
        except nova_exc.Conflict as err:
            # Shelving already: an earlier run's request, whose applier
            # died before it could see it accepted.
            now = self.server(self.uuid)
            if (nova_base.task_of(now) not in SHELVING
                    and now.status not in SHELVED):
                raise base.ActionError('Nova refused to shelve server %s: '
                                       '%s' % (self.uuid, err))
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to shelve server %s: %s'
                                   % (self.uuid, err))
        server = self.wait_for(self._resting,
                               CONF.watcher_applier.shelve_timeout,
                               'server %s to be shelved' % self.uuid)
        if server.status not in SHELVED:
            raise base.ActionError('the shelve of server %s failed: it is '
                                   '%s' % (self.uuid, server.status))

    def _resting(self):
        """The server once no task runs on it; None meanwhile."""
        server = self.server(self.uuid)
        if server.status == 'ERROR':
            raise base.ActionError('server %s went to ERROR' % self.uuid)
        return server if nova_base.task_of(server) is None else None

    def post_condition(self):
        status = self.server(self.uuid).status
        if status not in SHELVED:
            raise base.ActionError('server %s is %s, not shelved'
                                   % (self.uuid, status))

    def revert(self):
        try:
            server = self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return      # gone: nothing to unshelve
        if server.status not in SHELVED:
            return      # never shelved, or unshelved by someone since
        try:
            self.nova.servers.unshelve(self.uuid)
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to unshelve server %s: %s'
                                   % (self.uuid, err))
        server = self.wait_for(self._resting,
                               CONF.watcher_applier.shelve_timeout,
                               'server %s to be unshelved' % self.uuid)
        if server.status != 'ACTIVE':
            raise base.ActionError('the unshelve of server %s failed: it is '
                                   '%s' % (self.uuid, server.status))

    def recover(self, started_at):
        try:
            self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            # Gone: run again, the pre-condition skips it.
            return base.NOT_DONE
        server = self.wait_for(self._resting,
                               CONF.watcher_applier.shelve_timeout,
                               'server %s to settle' % self.uuid)
        return base.DONE if server.status in SHELVED else base.NOT_DONE
