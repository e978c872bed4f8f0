"""delete: delete a server (Nova's ``DELETE /servers/{id}``).

Watcher 17 has no action of this name; its parameters are those of
Watcher's ``stop`` (``resource_id``, the server's uuid), as the approved
spec preemptible-instances (openstack/watcher-specs 2026.2, "Actions")
gives them. Its pre-condition, the server exists: one that is gone
already is SKIPPED (Nova answers 404; as Watcher 16 and later skip an
action with nothing left to do). Its post-condition, the server no longer
exists: the action waits, within [watcher_applier] delete_timeout, until
Nova answers 404. Where Nova only soft-deletes (its
reclaim_instance_interval), the server still exists and still holds its
allocation until Nova reclaims it: the action then has Nova delete it
for good (``forceDelete``), as it does with a server it finds
SOFT_DELETED already. A server Nova refuses to delete (locked: 409)
fails it, saying why.

Irreversible: a deleted server cannot be brought back, so its revert
fails, saying so, and a rollback records it as not rolled back. A delete
cannot be aborted in Nova: an abort stops the wait only. After its
applier died, it is done once the server is gone, and may run again
otherwise: deleting a server twice deletes it once.
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
        self.server_or_skip()

    def execute(self):
        try:
            server = self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return      # gone meanwhile: what this action wanted
        if server.status == SOFT_DELETED:
            self._force()
        else:
            try:
                self.nova.servers.delete(self.uuid)
            except nova_exc.NotFound:
                pass
            except nova_exc.ClientException as err:
                raise base.ActionError('Nova refused to delete server %s: '
                                       '%s' % (self.uuid, err))
        self.wait_for(self._gone, CONF.watcher_applier.delete_timeout,
                      'server %s to be deleted' % self.uuid)

    def _force(self):
        """Have Nova delete the soft-deleted server for good."""
        try:
            self.nova.servers.force_delete(self.uuid)
        except nova_exc.NotFound:
            pass
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to delete soft-deleted '
                                   'server %s for good: %s' % (self.uuid,
                                                               err))

    def _gone(self, force=True):
        """True once Nova no longer has the server; a soft-deleted one
        (Nova's reclaim_instance_interval) is deleted for good first,
        unless not to ``force``."""
        try:
            server = self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return True
        task = nova_base.task_of(server)
        if server.status == 'ERROR' and task is None:
            raise base.ActionError('the delete of server %s failed: it is '
                                   'in ERROR' % self.uuid)
        if force and server.status == SOFT_DELETED and task is None:
            self._force()
        return False

    def post_condition(self):
        if not self._gone(force=False):
            raise base.ActionError('server %s still exists' % self.uuid)

    def revert(self):
        raise base.ActionError('server %s cannot be brought back: delete is '
                               'irreversible' % self.uuid)

    def recover(self, started_at):
        try:
            server = self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return base.DONE
        if nova_base.task_of(server) == 'deleting':
            # The earlier run's request is at Nova: wait for its end.
            self.wait_for(self._gone, CONF.watcher_applier.delete_timeout,
                          'server %s to be deleted' % self.uuid)
            return base.DONE
        # Soft-deleted too: run again, to delete it for good.
        return base.NOT_DONE
