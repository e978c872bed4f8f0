"""restart_server: restart a server whose guest failed (the recovery of a
VM notification, as Masakari's instance failure flow).

The server is stopped through Nova if it is not stopped already (Nova
may still show ACTIVE a guest that died: stopping it makes Nova's record
true), then started, and the action waits until Nova shows it ACTIVE. A
server waiting for its resize to be confirmed is first reset to active,
as Masakari does. Before anything, the rules of common/instance_ha/failures.py
are checked again on the server as Nova shows it now: a paused or
rescued server, or one not HA_Enabled (unless
``process_all_instances``), fails the action, saying why, rather than
being restarted.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.common.instance_ha import failures

CONF = cfg.CONF

vm_state = nova_base.vm_state


class RestartServer(nova_base.ServerAction):
    name = 'restart_server'
    description = 'Stops (if it is not stopped) and starts a server.'
    schema = base.input_schema(
        {'resource_id': base.NAME, 'notification_uuid': base.NAME_OR_NULL,
         'process_all_instances': {'type': 'boolean'}},
        ['resource_id'])

    def pre_condition(self):
        server = self.server(self.uuid)
        reason = failures.server_not_recovered(
            self.uuid, server.metadata, vm_state(server),
            self.input_parameters.get('process_all_instances', False))
        if reason:
            raise base.ActionError(reason)

    def execute(self):
        server = self.server(self.uuid)
        if vm_state(server) == 'resized':
            self._call('reset to active', self.nova.servers.reset_state,
                       server, 'active')
        if vm_state(server) != 'stopped':
            self.stop_server()
        self.start_server()

    def _call(self, what, call, *args):
        try:
            call(*args)
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to %s server %s: %s'
                                   % (what, self.uuid, err))

    def post_condition(self):
        server = self.server(self.uuid)
        if vm_state(server) != 'active':
            raise base.ActionError('server %s is %s, not active'
                                   % (self.uuid, vm_state(server)))

    def recover(self, started_at):
        """Whether it was restarted cannot be told from Nova (an ACTIVE
        server may be the one whose guest died); once any task under way
        has ended, it may run again: at worst the server is restarted
        twice, after its guest had failed."""
        self.wait_for(lambda: nova_base.task_of(self.server(self.uuid))
                      is None, CONF.watcher_applier.migration_timeout,
                      'server %s to settle' % self.uuid)
        return base.NOT_DONE
