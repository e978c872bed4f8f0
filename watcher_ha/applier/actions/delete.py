"""delete: delete a server (Nova's ``DELETE /servers/{id}``).

Watcher 17 has no action of this name; its parameters are those of
Watcher's ``stop`` (``resource_id``, the server's uuid). Skipped when the
server is gone already (Nova answers 404). Otherwise Nova is asked to
delete it and the action waits, within [watcher_applier] delete_timeout,
until Nova answers 404 for it, or shows it SOFT_DELETED (Nova's
reclaim_instance_interval: Nova reclaims it later by itself). A server
Nova refuses to delete (locked: 409) fails it, saying why.

Irreversible: a deleted server cannot be brought back, so its revert
fails, saying so, and a rollback records it as not rolled back. A delete
cannot be aborted in Nova: an abort stops the wait only. After its
applier died, it is done once the server is gone (or soft-deleted), and
may run again otherwise: deleting a server twice deletes it once.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

CONF = cfg.CONF

SOFT_DELETED = 'SOFT_DELETED'


class Delete(nova_base.ServerAction):
    name = 'delete'
    description = 'Deletes a server; irreversible.'
    schema = nova_base.ONE_SERVER_SCHEMA

    def pre_condition(self):
        if self.server_or_skip().status == SOFT_DELETED:
            raise base.ActionSkipped('server %s is deleted already (%s)'
                                     % (self.uuid, SOFT_DELETED))

    def execute(self):
        try:
            self.nova.servers.delete(self.uuid)
        except nova_exc.NotFound:
            pass        # gone meanwhile: what this action wanted
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to delete server %s: %s'
                                   % (self.uuid, err))
        self.wait_for(self._gone, CONF.watcher_applier.delete_timeout,
                      'server %s to be deleted' % self.uuid)

    def _gone(self):
        """True once Nova no longer has the server (or soft-deleted it)."""
        try:
            server = self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return True
        if server.status == 'ERROR' and nova_base.task_of(server) is None:
            raise base.ActionError('the delete of server %s failed: it is '
                                   'in ERROR' % self.uuid)
        return server.status == SOFT_DELETED

    def post_condition(self):
        if not self._gone():
            raise base.ActionError('server %s still exists' % self.uuid)

    def revert(self):
        raise base.ActionError('server %s cannot be brought back: delete is '
                               'irreversible' % self.uuid)

    def recover(self, started_at):
        try:
            server = self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return base.DONE
        if server.status == SOFT_DELETED:
            return base.DONE
        if nova_base.task_of(server) == 'deleting':
            # The earlier run's request is at Nova: wait for its end.
            self.wait_for(self._gone, CONF.watcher_applier.delete_timeout,
                          'server %s to be deleted' % self.uuid)
            return base.DONE
        return base.NOT_DONE
