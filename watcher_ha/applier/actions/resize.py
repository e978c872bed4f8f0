"""resize: give a server another flavor (Watcher's action of that name).

``flavor`` is the flavor's id or name, as Nova accepts it. Skipped when
there is nothing to resize: the server is gone, or has that flavor
already. A flavor that does not exist, or a server Nova does not resize
(neither ACTIVE nor SHUTOFF), fails it. Otherwise Nova resizes the server
(possibly onto another host), the action confirms the resize once Nova
waits for it (VERIFY_RESIZE), and waits until the server rests with its
new flavor. As in Watcher, it has no revert. After its applier died: a
resize waiting for its confirmation is confirmed (done), a server with
the new flavor is done, one with its old flavor and no task may be
resized again.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import flavors

CONF = cfg.CONF

# The statuses Nova resizes.
RESIZABLE = ('ACTIVE', 'SHUTOFF')


class Resize(nova_base.ServerAction):
    name = 'resize'
    description = 'Gives a server another flavor.'
    schema = base.input_schema(
        {'resource_id': nova_base.SERVER_UUID, 'flavor': base.NAME},
        ['resource_id', 'flavor'], more=False)

    def pre_condition(self):
        server = self.server_or_skip()
        flavor = self._flavor()
        if _flavor_name(server) == flavor.name:
            raise base.ActionSkipped('server %s has the flavor %s already'
                                     % (self.uuid, flavor.name))
        if server.status not in RESIZABLE:
            raise base.ActionError(
                'server %s is %s: Nova resizes only %s servers'
                % (self.uuid, server.status, ' or '.join(RESIZABLE)))

    def _flavor(self):
        """The flavor asked for, by id or else by name."""
        wanted = self.input_parameters['flavor']
        try:
            return flavors.find(self.nova, wanted)
        except nova_exc.NotFound:
            raise base.ActionError('flavor %s does not exist: no flavor '
                                   'has that id or name' % wanted)

    def execute(self):
        flavor = self._flavor()
        try:
            self.nova.servers.resize(self.uuid, flavor.id)
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to resize server %s to %s: '
                                   '%s' % (self.uuid, flavor.name, err))
        self._finish(flavor)

    def _finish(self, flavor):
        server = self.wait_for(self._waiting_or_resting,
                               CONF.watcher_applier.migration_timeout,
                               'the resize of server %s' % self.uuid)
        if server.status == 'VERIFY_RESIZE':
            try:
                self.nova.servers.confirm_resize(self.uuid)
            except nova_exc.Conflict:
                # Nova confirmed it meanwhile (resize_confirm_window).
                pass
            except nova_exc.ClientException as err:
                raise base.ActionError('Nova refused to confirm the resize '
                                       'of server %s: %s' % (self.uuid, err))
            server = self.wait_for(self._resting,
                                   CONF.watcher_applier.migration_timeout,
                                   'server %s to be resized' % self.uuid)
        if _flavor_name(server) != flavor.name:
            raise base.ActionError(
                'the resize of server %s failed: it has the flavor %s, not '
                '%s' % (self.uuid, _flavor_name(server), flavor.name))

    def _waiting_or_resting(self):
        server = self.server(self.uuid)
        if server.status == 'ERROR':
            raise base.ActionError('server %s went to ERROR' % self.uuid)
        if server.status == 'VERIFY_RESIZE' or (
                nova_base.task_of(server) is None
                and server.status in RESIZABLE):
            return server
        return None

    def _resting(self):
        server = self._waiting_or_resting()
        return None if server is None or (
            server.status == 'VERIFY_RESIZE') else server

    def post_condition(self):
        server = self.server(self.uuid)
        if server.status not in RESIZABLE:
            raise base.ActionError('server %s is %s after its resize'
                                   % (self.uuid, server.status))

    def recover(self, started_at):
        flavor = self._flavor()
        server = self.wait_for(self._waiting_or_resting,
                               CONF.watcher_applier.migration_timeout,
                               'server %s to settle' % self.uuid)
        if server.status == 'VERIFY_RESIZE' or (
                _flavor_name(server) == flavor.name):
            self._finish(flavor)
            return base.DONE
        return base.NOT_DONE


def _flavor_name(server):
    # Nova shows the flavor's name (2.47 and later), not its id.
    return (getattr(server, 'flavor', None) or {}).get('original_name')
