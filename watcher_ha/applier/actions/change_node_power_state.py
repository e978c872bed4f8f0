"""change_node_power_state: power a compute node on or off through
Ironic (Watcher's action of that name; MAAS, deprecated in Watcher, is
left out).

``resource_id`` is the bare metal node's uuid (or name), ``state`` is
``on`` or ``off``, ``resource_name`` the compute host the node runs (by
default, the node's name). Skipped when the node is in that power state
already, with no power action under way. As in Watcher, a host that
still holds servers (Nova's view, any state) is not powered off: the
action fails, saying which. Otherwise Ironic is asked (``PUT
/v1/nodes/{node}/states/power``, through the fence) and the node read
every [watcher_applier] poll_interval until Ironic reports it in that
state with no power action under way, within [watcher_applier]
change_node_power_state_timeout: a power action already under way is
waited for first, a node locked by another operation (409) is asked
again at the next poll, and a power action Ironic ended in the other
state fails the action with Ironic's ``last_error``.

Its revert asks for the other state, the same way, as Watcher's does. A
power action cannot be aborted in Ironic: an abort stops the wait only.
Asking for a power state twice is harmless, so after its applier died
the action waits for a power action under way to end, then is done if
the node is in that state, and may run again otherwise.
"""


from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import ironic_node
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import ironic
from watcher_ha.common import holds

CONF = cfg.CONF

ON, OFF = 'on', 'off'
# Watcher's state -> Ironic's power state and target.
IRONIC_STATES = {ON: 'power on', OFF: 'power off'}
OTHER = {ON: OFF, OFF: ON}
OF_IRONIC = {ironic: ours for ours, ironic in IRONIC_STATES.items()}
FIELDS = ('uuid', 'name', 'power_state', 'target_power_state',
          'last_error', 'reservation')


class ChangeNodePowerState(ironic_node.IronicNode, nova_base.NovaAction):
    name = 'change_node_power_state'
    fields = FIELDS
    description = 'Powers a compute node on or off through Ironic.'
    schema = base.input_schema(
        {'resource_id': base.NAME, 'resource_name': base.NAME,
         'state': {'enum': [ON, OFF]}},
        ['resource_id', 'state'], more=False)

    @classmethod
    def resources(cls, input_parameters):
        found = {(holds.ANY, input_parameters['resource_id'])}
        if input_parameters.get('resource_name'):
            found.add((holds.COMPUTE_NODE, input_parameters['resource_name']))
        return found

    @property
    def node(self):
        return self.input_parameters['resource_id']

    @property
    def state(self):
        return self.input_parameters['state']

    def doing(self):
        return 'power node %s %s' % (self.node, self.state)

    def pre_condition(self):
        node = self.read()
        if (node.get('target_power_state') is None
                and node.get('power_state') == IRONIC_STATES[self.state]):
            raise base.ActionSkipped('node %s is %s already'
                                     % (self.node, node['power_state']))
        if self.state == OFF:
            self._check_empty(node)

    def _check_empty(self, node):
        """ActionError if the node's compute host holds servers."""
        host = self.input_parameters.get('resource_name') or node.get('name')
        if not host:
            return
        try:
            held = self.nova.servers.list(
                search_opts={'host': host, 'all_tenants': True})
        except nova_exc.ClientException as err:
            raise base.ActionError('could not ask Nova which servers compute '
                                   'host %s holds: %s' % (host, err))
        if held:
            raise base.ActionError(
                'compute host %s of node %s holds %d server(s) (%s): it is '
                'not powered off' % (host, self.node, len(held),
                                     ', '.join(s.id for s in held[:5])))

    power_timeout_option = (
        '[watcher_applier] change_node_power_state_timeout')

    def power_timeout(self):
        return CONF.watcher_applier.change_node_power_state_timeout

    def refused_power(self, target, response):
        return 'Ironic refused to power node %s %s: %s' % (
            self.node, OF_IRONIC[target], ironic.said(response))

    def execute(self):
        self._power(self.state)

    def revert(self):
        self._requested, self._refused = False, None
        self._power(OTHER[self.state])

    def _power(self, state):
        wanted = IRONIC_STATES[state]
        before = self._check_empty if state == OFF else None
        node = self.poll(lambda: self.power_step(wanted, before))
        if node is None:
            raise self.timed_out('node %s was not reported %s'
                                 % (self.node, wanted))
        if node.get('power_state') != wanted:
            raise base.ActionError(
                'Ironic could not power node %s %s: %s' % (
                    self.node, state, node.get('last_error') or
                    'its power action ended with the node %s'
                    % node.get('power_state')))

    def post_condition(self):
        node = self.read()
        if node.get('power_state') != IRONIC_STATES[self.state]:
            raise base.ActionError('node %s is not %s: %s' % (
                self.node, IRONIC_STATES[self.state],
                ironic_node.power_state_of(node)))

    def recover(self, started_at):
        return self.recover_power(IRONIC_STATES[self.state])
