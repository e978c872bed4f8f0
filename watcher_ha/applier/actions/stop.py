"""stop: stop a server (Watcher's action of that name).

Skipped when there is nothing to stop: the server is gone, or already
SHUTOFF. Otherwise Nova is asked to stop it and the action waits until
Nova shows it SHUTOFF with no task. Its revert starts it again. After its
applier died, it is done if the server is stopped, and may run again
otherwise (a stop asked twice is a stop).
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

CONF = cfg.CONF


class Stop(nova_base.ServerAction):
    name = 'stop'
    description = 'Stops a server.'
    schema = base.input_schema({'resource_id': nova_base.SERVER_UUID},
                               ['resource_id'], more=False)

    def pre_condition(self):
        server = self.server_or_skip()
        if server.status == 'SHUTOFF':
            raise base.ActionSkipped('server %s is stopped already'
                                     % self.uuid)

    def execute(self):
        self.stop_server()

    def post_condition(self):
        status = self.server(self.uuid).status
        if status != 'SHUTOFF':
            raise base.ActionError('server %s is %s, not SHUTOFF'
                                   % (self.uuid, status))

    def revert(self):
        try:
            self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            return      # gone: nothing to start
        self.start_server()

    def recover(self, started_at):
        server = self.wait_for(self._resting, CONF.watcher_applier
                               .migration_timeout,
                               'server %s to settle' % self.uuid)
        return base.DONE if server.status == 'SHUTOFF' else base.NOT_DONE

    def _resting(self):
        server = self.server(self.uuid)
        return server if nova_base.task_of(server) is None else None
