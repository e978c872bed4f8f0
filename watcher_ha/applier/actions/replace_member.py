"""replace_member: create the member that takes a failed member's place
in its application, as a standby (application failover,
doc/source/app_failover.rst): through the application's Heat stack
(``method`` ``heat``: heat_member.py), or, by default, through Nova, as
follows.

The new server copies the failed member as the strategy read it when it
planned (flavor, image, key, networks, metadata with ``<role_key>``
``standby``)
and joins the application's server group (the scheduler hint), so that
Nova's scheduler keeps the group's policy (anti-affinity: another host
than every other member's). It carries the metadata
``watcher_ha:replaces = <failed member>``, by which a replacement is
found rather than made twice: whoever runs the action again (the same
plan taken over after its applier died, a later plan) finds it and
waits for it. Two made at once (an applier paused with its request on
the way while another took the plan over) are one once either looks
again: the oldest is kept, the other deleted. The action ends when
Nova shows it ACTIVE; ERROR (no host honours the group's policy) fails
it.
"""

import re

from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import heat_member
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import flavors
from watcher_ha.common import holds
from watcher_ha.common.app_failover import members

CONF = cfg.CONF

STRING_MAP = {'type': 'object', 'additionalProperties': {'type': 'string'}}


NOVA, HEAT = members.REPLACE_NOVA, members.REPLACE_HEAT


class ReplaceMember(nova_base.NovaAction):
    name = 'replace_member'
    description = ('Creates, through Nova or the application\'s Heat '
                   'stack, the standby that takes a failed member\'s place '
                   'in its server group.')
    schema = dict(base.input_schema(
        {'replaces': nova_base.SERVER_UUID, 'server_group': base.NAME,
         'role_key': base.NAME, 'resource_name': base.NAME,
         'method': {'enum': [NOVA, HEAT]},
         'flavor': base.NAME, 'image': base.NAME,
         'key_name': base.NAME_OR_NULL, 'metadata': STRING_MAP,
         'networks': {'type': ['array', 'null'], 'items': base.NAME},
         # Through Heat: the top stack, and where the member is.
         'stack': base.NAME, 'member_stack': base.NAME,
         'resource': base.NAME},
        ['replaces', 'server_group', 'role_key', 'resource_name']),
        allOf=[{'if': {'properties': {'method': {'const': HEAT}},
                       'required': ['method']},
                'then': {'required': ['stack', 'member_stack',
                                      'resource']},
                'else': {'required': ['flavor', 'image', 'metadata']}}])
    resources = base.holding(holds.SERVER, 'replaces')

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        self._heat_member = None

    @property
    def through_heat(self):
        """The Heat side (heat_member.py) when ``method`` is heat."""
        if self.input_parameters.get('method', NOVA) != HEAT:
            return None
        if self._heat_member is None:
            self._heat_member = heat_member.HeatMember(self)
        return self._heat_member

    @property
    def replaces(self):
        return self.input_parameters['replaces']

    def replacements(self):
        """The servers that replace the failed member, oldest first (by
        creation, then id: every applier that looks agrees), among the
        group's members and the servers of its name."""
        group = self.nova.server_groups.get(
            self.input_parameters['server_group'])
        candidates = list(group.members)
        # Nova's name filter is a regular expression.
        candidates += [s.id for s in self.nova.servers.list(
            search_opts={'name': '^%s$' % re.escape(
                self.input_parameters['resource_name']),
                'all_tenants': True})]
        found = []
        for uuid in dict.fromkeys(candidates):
            try:
                server = self.nova.servers.get(uuid)
            except nova_exc.NotFound:
                continue
            if (server.metadata or {}).get(members.REPLACES_KEY) == \
                    self.replaces:
                found.append(server)
        return sorted(found, key=lambda s: (getattr(s, 'created', ''), s.id))

    def replacement(self):
        """The replacement kept, if Nova has one."""
        found = self.replacements()
        return found[0] if found else None

    def _drop_duplicates(self):
        """Delete the replacements but the oldest: two appliers that each
        made one (the first paused with its request on the way, the
        second taking the plan over) leave one."""
        for extra in self.replacements()[1:]:
            try:
                self.nova.servers.delete(extra.id)
            except nova_exc.NotFound:
                continue
            except nova_exc.ClientException as err:
                raise base.ActionError('could not delete %s, a second '
                                       'replacement of member %s: %s'
                                       % (extra.id, self.replaces, err))

    def pre_condition(self):
        if self.through_heat:
            found = self.through_heat.done()
        else:
            found = self.replacement()
            found = found.id if found is not None and \
                found.status == 'ACTIVE' else None
        if found is not None:
            raise base.ActionSkipped('member %s is replaced already by %s'
                                     % (self.replaces, found))

    def execute(self):
        if self.through_heat:
            made = self.through_heat.execute()
            self.outcome = 'member %s replaced by %s, through Heat' % (
                self.replaces, made)
            return
        found = self.replacement()
        if found is None:
            self._create()
            self._drop_duplicates()
            found = self.replacement()
        server = self.wait_for(lambda: self._settled(found.id),
                               CONF.watcher_applier.migration_timeout,
                               'replacement %s to be ACTIVE' % found.id)
        self.outcome = 'member %s replaced by %s on %s' % (
            self.replaces, server.id, nova_base.host_of(server))

    def _create(self):
        parameters = self.input_parameters
        try:
            flavor = self._flavor(parameters['flavor'])
            return self.nova.servers.create(
                parameters['resource_name'], parameters['image'], flavor,
                meta=dict(parameters['metadata']),
                key_name=parameters.get('key_name'),
                nics=self._nics(parameters.get('networks')),
                scheduler_hints={'group': parameters['server_group']})
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to create the replacement '
                                   'of member %s: %s' % (self.replaces, err))

    @staticmethod
    def _nics(networks):
        """Nova's ``networks`` for the replacement: a port on each of
        ``networks`` (the failed member's), none for an empty list (it
        had none), Nova's own choice (``auto``) for None (a plan of a
        release that did not copy them)."""
        if networks is None:
            return 'auto'
        return [{'net-id': net} for net in networks] or 'none'

    def _flavor(self, ref):
        return flavors.find(self.nova, ref)

    def _settled(self, uuid):
        server = self.server(uuid)
        if server.status == 'ERROR':
            raise base.ActionError(
                'the replacement %s of member %s went to ERROR: %s' % (
                    uuid, self.replaces,
                    (getattr(server, 'fault', None) or {}).get('message')))
        return server if server.status == 'ACTIVE' else None

    def post_condition(self):
        if self.through_heat:
            if self.through_heat.done() is None:
                raise base.ActionError('Heat has not replaced member %s'
                                       % self.replaces)
            return
        found = self.replacement()
        if found is None or found.status != 'ACTIVE':
            raise base.ActionError('member %s has no ACTIVE replacement'
                                   % self.replaces)

    def recover(self, started_at):
        if self.through_heat:
            return self.through_heat.recover()
        self._drop_duplicates()
        found = self.replacement()
        if found is None:
            return base.NOT_DONE
        self.wait_for(lambda: self._settled(found.id),
                      CONF.watcher_applier.migration_timeout,
                      'replacement %s to be ACTIVE' % found.id)
        return base.DONE
