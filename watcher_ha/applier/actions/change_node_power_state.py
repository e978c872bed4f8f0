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


import tenacity
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.applier.actions import ironic_node

CONF = cfg.CONF

ON, OFF = 'on', 'off'
# Watcher's state -> Ironic's power state and target.
IRONIC_STATES = {ON: 'power on', OFF: 'power off'}
OTHER = {ON: OFF, OFF: ON}
FIELDS = ('uuid', 'name', 'power_state', 'target_power_state',
          'last_error', 'reservation')


class ChangeNodePowerState(ironic_node.IronicNode, nova_base.NovaAction):
    name = 'change_node_power_state'
    fields = FIELDS
    description = 'Powers a compute node on or off through Ironic.'
    schema = {
        'type': 'object',
        'properties': {
            'resource_id': {'type': 'string', 'minLength': 1},
            'resource_name': {'type': 'string', 'minLength': 1},
            'state': {'enum': [ON, OFF]},
        },
        'required': ['resource_id', 'state'],
        'additionalProperties': False,
    }

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        # Whether this run's power request was accepted.
        self._requested = False
        # Why the latest request was refused for now (a lock), if it was.
        self._refused = None

    @classmethod
    def resources(cls, input_parameters):
        found = {(base.ANY, input_parameters['resource_id'])}
        if input_parameters.get('resource_name'):
            found.add((base.COMPUTE_NODE, input_parameters['resource_name']))
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

    def execute(self):
        self._power(self.state)

    def revert(self):
        self._requested, self._refused = False, None
        self._power(OTHER[self.state])

    def _power(self, state):
        wanted = IRONIC_STATES[state]
        node = self._poll(lambda: self._step(state))
        if node is None:
            raise base.ActionError(
                'node %s was not reported %s within %s s ([watcher_applier] '
                'change_node_power_state_timeout): %s' % (
                    self.node, wanted, _timeout(),
                    self._refused or _state(self.read())))
        if node.get('power_state') != wanted:
            raise base.ActionError(
                'Ironic could not power node %s %s: %s' % (
                    self.node, state, node.get('last_error') or
                    'its power action ended with the node %s'
                    % node.get('power_state')))

    def _step(self, state):
        """One look at the node, with a power request if it needs one:
        the node once no power action is under way and it is in ``state``,
        or this run's request ended; else None."""
        node = self.read()
        if node.get('target_power_state') is not None:
            return None     # a power action under way: wait for its end
        if node.get('power_state') == IRONIC_STATES[state] or (
                self._requested):
            return node
        if state == OFF:
            self._check_empty(node)
        self._request(state)
        return None

    def _request(self, state):
        response = self.call('PUT', self.path('states', 'power'),
                              json={'target': IRONIC_STATES[state]})
        if response.status_code == 202:
            self._requested, self._refused = True, None
        elif response.status_code == 409:
            # NodeLocked: another operation holds the node; ask again.
            self._refused = ironic_node.said(response)
        else:
            raise base.ActionError('Ironic refused to power node %s %s: %s'
                                   % (self.node, state,
                                      ironic_node.said(response)))

    def _poll(self, step):
        """``step()`` every poll_interval until it returns something,
        which is returned; None when out of time; ActionError on abort
        (Ironic cannot abort a power action: it goes on)."""
        retrying = tenacity.Retrying(
            stop=(tenacity.stop_after_delay(_timeout())
                  | tenacity.stop_when_event_set(self._aborted)),
            wait=tenacity.wait_fixed(CONF.watcher_applier.poll_interval),
            retry=tenacity.retry_if_result(lambda value: value is None),
            retry_error_callback=lambda state: state.outcome.result())
        found = retrying(step)
        if found is None and self.aborted:
            raise base.ActionError('aborted while waiting for node %s'
                                   % self.node)
        return found

    def post_condition(self):
        node = self.read()
        if node.get('power_state') != IRONIC_STATES[self.state]:
            raise base.ActionError('node %s is not %s: %s' % (
                self.node, IRONIC_STATES[self.state],
                _state(node)))

    def recover(self, started_at):
        node = self._poll(self._idle)
        if node is not None and (
                node.get('power_state') == IRONIC_STATES[self.state]):
            return base.DONE
        return base.NOT_DONE

    def _idle(self):
        node = self.read()
        return node if node.get('target_power_state') is None else None


def _state(node):
    return 'power state %s, target %s, last error %s, reservation %s' % (
        node.get('power_state'), node.get('target_power_state'),
        node.get('last_error'), node.get('reservation'))


def _timeout():
    return CONF.watcher_applier.change_node_power_state_timeout
