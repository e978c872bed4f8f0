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

UUID_PATTERN = ('^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-'
                '[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$')


class Stop(nova_base.ServerAction):
    name = 'stop'
    description = 'Stops a server.'
    schema = {
        'type': 'object',
        'properties': {
            'resource_id': {'type': 'string', 'pattern': UUID_PATTERN},
        },
        'required': ['resource_id'],
        'additionalProperties': False,
    }

    def pre_condition(self):
        server = self.server_or_skip()
        if server.status == 'SHUTOFF':
            raise base.ActionSkipped('server %s is stopped already'
                                     % self.uuid)

    def execute(self):
        try:
            self.nova.servers.stop(self.uuid)
        except nova_exc.Conflict as err:
            # Stopped, or stopping, since the pre-condition: what it ends
            # in decides.
            if nova_base.task_of(self.server(self.uuid)) is None and (
                    self.server(self.uuid).status != 'SHUTOFF'):
                raise base.ActionError('Nova refused to stop server %s: %s'
                                       % (self.uuid, err))
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to stop server %s: %s'
                                   % (self.uuid, err))
        self._wait_for('SHUTOFF')

    def post_condition(self):
        status = self.server(self.uuid).status
        if status != 'SHUTOFF':
            raise base.ActionError('server %s is %s, not SHUTOFF'
                                   % (self.uuid, status))

    def revert(self):
        try:
            self.nova.servers.start(self.uuid)
        except nova_exc.NotFound:
            return      # gone: nothing to start
        except nova_exc.Conflict:
            pass        # running already, or starting
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to start server %s again: '
                                   '%s' % (self.uuid, err))
        self._wait_for('ACTIVE')

    def recover(self, started_at):
        server = self.wait_for(self._resting, CONF.watcher_applier
                               .migration_timeout,
                               'server %s to settle' % self.uuid)
        return base.DONE if server.status == 'SHUTOFF' else base.NOT_DONE

    def _resting(self):
        server = self.server(self.uuid)
        return server if nova_base.task_of(server) is None else None

    def _wait_for(self, status):
        def settled():
            server = self._resting()
            if server is not None and server.status == 'ERROR':
                raise base.ActionError('server %s went to ERROR'
                                       % self.uuid)
            return server is not None and server.status == status
        self.wait_for(settled, CONF.watcher_applier.migration_timeout,
                      'server %s to be %s' % (self.uuid, status))
