"""quiesce_server: stop a failed active member on its live host, best
effort (application failover, doc/source/app_failover.rst).

Nova is asked to stop the server, and the action waits ``timeout``
seconds for Nova to show it SHUTOFF. It never fails: a server whose host
Nova counts down, a stop Nova refuses, a stop that sticks (a compute
that Nova still counts up but that hears nothing: the stop stays
``powering-off``) all leave the plan to go on, and what comes next
(evict_member) moves nothing until the member is proven fenced. The
action's status says which it was. Stopping twice is a stop: after its
applier died, it is done if the server is stopped, and may run again
otherwise.
"""

from novaclient import exceptions as nova_exc

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import applications


class QuiesceServer(nova_base.ServerAction):
    name = 'quiesce_server'
    description = ('Stops a failed member on its live host, if it can, '
                   'before its application fails over.')
    schema = base.input_schema(
        {'resource_id': nova_base.SERVER_UUID,
         'resource_name': base.NAME_OR_NULL,
         'timeout': {'type': 'integer', 'minimum': 1, 'maximum': 3600}},
        ['resource_id'])

    def execute(self):
        try:
            server = self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            self.outcome = 'server %s is gone from Nova' % self.uuid
            return
        if server.status == 'SHUTOFF' and nova_base.task_of(server) is None:
            self.outcome = 'server %s was stopped already' % self.uuid
            return
        host = nova_base.host_of(server)
        if host is None:
            self.outcome = ('not stopped: server %s has no host (%s); '
                            'fencing decides' % (self.uuid, server.status))
            return
        if applications.host_down(self.nova, host):
            self.outcome = ('not stopped: Nova counts its host %s down; '
                            'fencing decides' % host)
            return
        try:
            self.nova.servers.stop(self.uuid)
        except nova_exc.ClientException as err:
            self.outcome = ('Nova refused to stop it (%s); fencing decides'
                            % err)
            return
        timeout = self.input_parameters.get('timeout', 30)
        try:
            self.wait_for(self._stopped, timeout,
                          'server %s to stop' % self.uuid)
        except base.ActionError as err:
            if self.aborted:
                raise
            self.outcome = '%s; fencing decides' % err
            return
        self.outcome = 'server %s stopped on %s' % (self.uuid, host)

    def _stopped(self):
        server = self.server(self.uuid)
        return (server.status == 'SHUTOFF'
                and nova_base.task_of(server) is None)

    def recover(self, started_at):
        try:
            return base.DONE if self._stopped() else base.NOT_DONE
        except base.ActionError:
            return base.DONE        # gone: nothing left to stop
