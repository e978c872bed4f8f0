"""replace_member through Heat (``method`` ``heat``): the failed member is
a resource of its stack (``resource`` of the stack ``member_stack``,
``name/id``: the nested stack of its AutoScalingGroup or ResourceGroup,
found by the strategy under the top ``stack``), and Heat replaces it,
so that the stack's view stays true (cloud/stacks.py has Heat's rules).

The resource is marked unhealthy (CHECK_FAILED) where it is, then the
top stack updated with ``existing``, once no update of it runs; Heat
makes the new server (in the group's server group: its policy kept) and
deletes the old one, and the action waits for the update's end
(UPDATE_COMPLETE). Done is the resource holding another server than
the failed one, complete, with that server ACTIVE in Nova: what anybody
running the action again finds, so that a second update is never sent
for a replacement made (nor a second mark). The new member is then
marked ``<role_key>`` ``standby`` with ``watcher_ha:replaces``, as a
Nova replacement is. An update Heat ends UPDATE_FAILED fails the action
with Heat's reason; a resource Heat dropped instead of replacing it (an
AutoScalingGroup without desired_capacity sizes itself to its healthy
members) fails it saying so.
"""

from heatclient import exc as heat_exc
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.cloud import clients
from watcher_ha.cloud import stacks
from watcher_ha.common.app_failover import members

CONF = cfg.CONF

IN_PROGRESS = '_IN_PROGRESS'
COMPLETE = '_COMPLETE'
# Updates sent before giving up: a second covers an update that ran
# before the member was marked.
UPDATES = 2


def client(action):
    """A heatclient whose every request that may change something passes
    ``action``'s fence first; ActionError without [heat] credentials."""
    reason = clients.configured(CONF, clients.HEAT_GROUP)
    if reason:
        raise base.ActionError(reason)
    return clients.heat(CONF, before_write=lambda: action.fence())


class HeatMember:
    """The Heat side of a replace_member ``action`` (its parameters, its
    fence, its Nova client and its waits)."""

    def __init__(self, action):
        self.action = action
        self.parameters = action.input_parameters
        self._heat = None

    @property
    def heat(self):
        if self._heat is None:
            self._heat = client(self.action)
        return self._heat

    @property
    def replaces(self):
        return self.parameters['replaces']

    def _member(self):
        found = stacks.resource(self.heat, self.parameters['member_stack'],
                                self.parameters['resource'])
        if found is None:
            raise base.ActionError(
                'Heat has no resource %s in stack %s any more: it dropped '
                'member %s instead of replacing it (an AutoScalingGroup '
                'without desired_capacity sizes itself to its healthy '
                'members: set desired_capacity)' % (
                    self.parameters['resource'],
                    self.parameters['member_stack'], self.replaces))
        return found

    def _stack_status(self):
        return stacks.top(self.heat, self.parameters['stack']).stack_status

    def replacement(self):
        """The new server's id once Heat replaced the member (the
        resource complete on another server), else None."""
        member = self._member()
        if member.server in (None, '', self.replaces) or \
                not member.status.endswith(COMPLETE):
            return None
        return member.server

    def done(self):
        """The replacement, if it is made and ACTIVE in Nova."""
        found = self.replacement()
        if found is None:
            return None
        try:
            server = self.action.nova.servers.get(found)
        except nova_exc.NotFound:
            return None
        return found if server.status == 'ACTIVE' else None

    def execute(self):
        """Mark, update, wait; once more if an update that ran before the
        mark ends without replacing it. The new server's id."""
        sent = []

        def settled():
            status = self._stack_status()
            if status.endswith(IN_PROGRESS):
                return False
            if sent and status.endswith('_FAILED'):
                raise base.ActionError(
                    'Heat could not replace member %s (%s): %s' % (
                        self.replaces, status, stacks.top(
                            self.heat, self.parameters['stack']
                        ).stack_status_reason))
            if self.done():
                return True
            if self.replacement() is None and \
                    self._member().server == self.replaces:
                if len(sent) == UPDATES:
                    raise base.ActionError(
                        'Heat updated stack %s %d times and did not replace '
                        'member %s: see the stack\'s events' % (
                            self.parameters['stack'], UPDATES,
                            self.replaces))
                self._mark()
                self._update()
                sent.append(status)
            return False
        self.action.wait_for(settled, CONF.watcher_applier.migration_timeout,
                             'Heat to replace member %s' % self.replaces)
        return self._keep(self.done())

    def _mark(self):
        member = self._member()
        if member.status == stacks.UNHEALTHY:
            return
        try:
            self.heat.resources.mark_unhealthy(
                self.parameters['member_stack'], self.parameters['resource'],
                True, 'watcher_ha: member %s of server group %s failed; '
                'its application failed over' % (
                    self.replaces, self.parameters['server_group']))
        except heat_exc.HTTPException as err:
            raise base.ActionError('Heat refused to mark member %s '
                                   'unhealthy: %s'
                                   % (self.replaces, stacks.said(err)))

    def _update(self):
        try:
            self.heat.stacks.update(self.parameters['stack'], existing=True)
        except heat_exc.HTTPException as err:
            raise base.ActionError('Heat refused to update stack %s: %s'
                                   % (self.parameters['stack'],
                                      stacks.said(err)))

    def _keep(self, server):
        """Mark the new member a standby that replaces the failed one."""
        try:
            self.action.nova.servers.set_meta(server, {
                self.parameters['role_key']: members.STANDBY,
                members.REPLACES_KEY: self.replaces})
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to mark %s, the member '
                                   'Heat made in place of %s, a standby: %s'
                                   % (server, self.replaces, err))
        return server

    def recover(self):
        """DONE once Heat replaced it (after the update under way, if
        any); NOT_DONE while the resource still holds the failed server
        (marking and updating again are harmless)."""
        self.action.wait_for(
            lambda: not self._stack_status().endswith(IN_PROGRESS),
            CONF.watcher_applier.migration_timeout,
            'the update of stack %s to end' % self.parameters['stack'])
        found = self.done()
        if found is None:
            return base.NOT_DONE
        self._keep(found)
        return base.DONE
