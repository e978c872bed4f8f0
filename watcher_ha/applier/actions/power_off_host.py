"""power_off_host: power fencing of a failed compute host, through Ironic.

force_host_down makes Nova treat a host as down; this makes it so. A host
cut off from the control plane (a network partition, a hung
nova-compute) may still run its guests, and evacuating them then runs
each twice: a recovery puts this action before its evacuations, which
start only once it succeeded.

The host's bare metal node (``node``, a name or uuid; by default the node
named like the host) is asked to power off (``PUT
/v1/nodes/{node}/states/power``, through the fence), then read until
Ironic reports it ``power off`` with no power action under way, which it
does once the BMC confirmed it. Within ``[ironic] power_timeout``:

* a power action already under way (an earlier run's, someone else's)
  is waited for first, then looked at;
* a node locked by another operation (409 NodeLocked) is asked again at
  the next poll;
* a power action Ironic ended with the power still on fails the action
  with Ironic's ``last_error``: the host must not be evacuated.

A host already off is done at once, without a power request, and
powering off twice is harmless: ``recover()`` answers DONE if the node is
off, NOT_DONE otherwise. Not reverted: a fenced host stays off until an
operator has looked at it (``openstack baremetal node power on``).
"""


import tenacity
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import ironic_node

CONF = cfg.CONF

POWER_OFF = 'power off'
# What the action reads of a node (?fields=, Bare Metal API 1.8+).
FIELDS = ('uuid', 'name', 'power_state', 'target_power_state',
          'last_error', 'reservation', 'maintenance', 'fault')


class PowerOffHost(ironic_node.IronicNode, base.OnHost, base.Action):
    name = 'power_off_host'
    fields = FIELDS
    description = ('Powers a failed compute host off through Ironic and '
                   'waits until its BMC confirms it.')
    schema = {
        'type': 'object',
        'properties': {
            'resource_name': {'type': 'string', 'minLength': 1},
            'node': {'type': ['string', 'null'], 'minLength': 1},
        },
        'required': ['resource_name'],
        'additionalProperties': True,
    }

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        # Whether this run's power-off request was accepted.
        self._requested = False
        # Why the latest request was refused for now (a lock), if it was.
        self._refused = None

    @property
    def node(self):
        return self.input_parameters.get('node') or self.host

    def doing(self):
        return 'power %s off' % self.host

    def described_node(self):
        return 'node %s of host %s' % (self.node, self.host)

    def unknown_node(self):
        if self.input_parameters.get('node'):
            return ('Ironic has no node %s (the node given for compute host '
                    '%s): give the name or uuid of the host\'s node'
                    % (self.node, self.host))
        return ('Ironic has no node named %s: name the compute host\'s node '
                'after it (openstack baremetal node set <node> --name %s), '
                'or give its name or uuid as the action\'s "node"'
                % (self.host, self.host))

    def _request_power_off(self):
        response = self.call('PUT', self.path('states', 'power'),
                             json={'target': POWER_OFF})
        if response.status_code == 202:
            self._requested, self._refused = True, None
        elif response.status_code == 409:
            # NodeLocked: another operation holds the node; ask again.
            self._refused = ironic_node.said(response)
        elif response.status_code == 404:
            raise base.ActionError(self.unknown_node())
        else:
            raise base.ActionError(
                'Ironic refused to power off node %s of host %s: %s; the '
                'host must not be evacuated until it is off: power it off '
                'by hand, then retry' % (self.node, self.host,
                                         ironic_node.said(response)))

    def _step(self):
        """One look at the node, with a power-off request if it needs one:
        the node once no power action is under way and it is off, or this
        run's request ended (in failure, if it is not off); else None."""
        node = self.read()
        if node.get('target_power_state') is not None:
            return None     # a power action under way: wait for its end
        if node.get('power_state') == POWER_OFF or self._requested:
            return node
        self._request_power_off()
        return None

    def _poll(self, step):
        """Call ``step()`` every [watcher_applier] poll_interval until it
        returns something, which is returned; None after [ironic]
        power_timeout; ActionError on abort."""
        retrying = tenacity.Retrying(
            stop=(tenacity.stop_after_delay(CONF.ironic.power_timeout)
                  | tenacity.stop_when_event_set(self._aborted)),
            wait=tenacity.wait_fixed(CONF.watcher_applier.poll_interval),
            retry=tenacity.retry_if_result(lambda value: value is None),
            retry_error_callback=lambda state: state.outcome.result())
        found = retrying(step)
        if found is None and self.aborted:
            raise base.ActionError('aborted while powering off %s'
                                   % self.host)
        return found

    def execute(self):
        node = self._poll(self._step)
        if node is None:
            raise base.ActionError(
                'node %s of host %s was not confirmed powered off within %s s'
                ' ([ironic] power_timeout): %s' % (
                    self.node, self.host, CONF.ironic.power_timeout,
                    self._refused or _state(self.read())))
        if node.get('power_state') != POWER_OFF:
            raise base.ActionError(self._failed(node))

    def _failed(self, node):
        if node.get('last_error'):
            why = 'Ironic could not power it off: %s' % node['last_error']
        else:
            why = ('its power action ended without an error, yet it is %s '
                   '(powered on again?)' % node.get('power_state'))
        return ('node %s of host %s: %s%s. The host may still run its '
                'servers and must not be evacuated: check its BMC (openstack'
                ' baremetal node validate %s, its driver_info), or power it '
                'off by hand, then retry the recovery' % (
                    self.node, self.host, why,
                    ' (fault: %s)' % node['fault'] if node.get('fault')
                    else '', self.node))

    def post_condition(self):
        node = self.read()
        if node.get('power_state') != POWER_OFF:
            raise base.ActionError('node %s of host %s is not powered off: '
                                   '%s' % (self.node, self.host, _state(node)))

    def recover(self, started_at):
        """DONE if the node is off, NOT_DONE otherwise (a power action
        under way is waited for first): powering off twice is harmless."""
        node = self._poll(self._idle)
        if node is not None and node.get('power_state') == POWER_OFF:
            return base.DONE
        return base.NOT_DONE

    def _idle(self):
        node = self.read()
        return node if node.get('target_power_state') is None else None


def _state(node):
    return 'power state %s, target %s, last error %s, reservation %s' % (
        node.get('power_state'), node.get('target_power_state'),
        node.get('last_error'), node.get('reservation'))
