"""shelve: shelve a server (Nova's ``shelve`` server action) and have it
offloaded.

Watcher 17 has no action of this name; its parameters are those of
Watcher's ``stop`` (``resource_id``, the server's uuid), as the approved
spec preemptible-instances (openstack/watcher-specs 2026.2, "Actions")
gives them. Its pre-conditions, the server exists and is not shelved:
one that is gone, or shelved and offloaded already (SHELVED_OFFLOADED),
is SKIPPED (nothing left to do); one Nova does not shelve (neither
ACTIVE, SHUTOFF, PAUSED nor SUSPENDED, nor SHELVED) fails it. Its
post-condition, the server is shelved: the action waits, within
[watcher_applier] shelve_timeout, until Nova shows it
SHELVED_OFFLOADED, with no task. A server Nova keeps on its host once
shelved (SHELVED, by its shelved_offload_time) still holds its
allocation there, which is what shelving is asked for to free: the
action then has Nova offload it (``shelveOffload``), as it does with a
server it finds SHELVED already. A shelve cannot be aborted in Nova: an
abort stops the wait only, and the applier that takes the plan over
finds where Nova got.

Its revert unshelves the server and waits until it is ACTIVE (Nova
starts a server it unshelves, whatever it was before). After its applier
died, it is done once the server is offloaded, and may run again
otherwise: a shelve asked while one is under way is refused by Nova and
counted as this action's own.
"""

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

CONF = cfg.CONF

SHELVED = ('SHELVED', 'SHELVED_OFFLOADED')
KEPT, OFFLOADED = SHELVED
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
        if server.status == OFFLOADED:
            raise base.ActionSkipped('server %s is %s already'
                                     % (self.uuid, server.status))
        if server.status not in SHELVABLE + (KEPT,):
            raise base.ActionError(
                'server %s is %s: Nova shelves only %s servers'
                % (self.uuid, server.status, ', '.join(SHELVABLE)))

    def execute(self):
        if self.server(self.uuid).status != KEPT:
            self._ask('shelve', SHELVING)
            server = self.wait_for(self._resting,
                                   CONF.watcher_applier.shelve_timeout,
                                   'server %s to be shelved' % self.uuid)
            if server.status not in SHELVED:
                raise base.ActionError('the shelve of server %s failed: it '
                                       'is %s' % (self.uuid, server.status))
            if server.status == OFFLOADED:
                return
        self._ask('shelve_offload', ('shelving_offloading',))
        server = self.wait_for(self._resting,
                               CONF.watcher_applier.shelve_timeout,
                               'server %s to be offloaded' % self.uuid)
        if server.status != OFFLOADED:
            raise base.ActionError('the offload of server %s failed: it is '
                                   '%s' % (self.uuid, server.status))

    def _ask(self, request, under_way):
        """Ask Nova to ``request`` (shelve, shelve_offload) the server; a
        refusal while one is ``under_way`` (task states), or done, is
        this action's earlier request, whose applier died before it
        could see it accepted."""
        try:
            getattr(self.nova.servers, request)(self.uuid)
        except nova_exc.Conflict as err:
            now = self.server(self.uuid)
            if (nova_base.task_of(now) not in under_way
                    and now.status != OFFLOADED):
                raise base.ActionError('Nova refused to %s server %s: %s'
                                       % (request.replace('_', ' '),
                                          self.uuid, err))
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to %s server %s: %s'
                                   % (request.replace('_', ' '), self.uuid,
                                      err))

    def _resting(self):
        """The server once no task runs on it; None meanwhile."""
        server = self.server(self.uuid)
        if server.status == 'ERROR':
            raise base.ActionError('server %s went to ERROR' % self.uuid)
        return server if nova_base.task_of(server) is None else None

    def post_condition(self):
        status = self.server(self.uuid).status
        if status != OFFLOADED:
            raise base.ActionError('server %s is %s, not shelved and '
                                   'offloaded' % (self.uuid, status))

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
        # Kept on its host (SHELVED): run again, to offload it.
        return base.DONE if server.status == OFFLOADED else base.NOT_DONE
