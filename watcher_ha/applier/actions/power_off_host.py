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


from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import ironic_node
from watcher_ha.cloud import ironic

CONF = cfg.CONF

POWER_OFF = 'power off'
# What the action reads of a node (?fields=, Bare Metal API 1.8+).
FIELDS = ('uuid', 'name', 'power_state', 'target_power_state',
          'last_error', 'reservation', 'maintenance', 'fault')


class PowerOffHost(ironic_node.IronicNode, base.HostFencing, base.Action):
    name = 'power_off_host'
    fields = FIELDS
    description = ('Powers a failed compute host off through Ironic and '
                   'waits until its BMC confirms it.')
    schema = base.input_schema(
        {'resource_name': base.NAME,
         'node': {'type': ['string', 'null'], 'minLength': 1},
         **base.HostFencing.HOLD_HOST},
        ['resource_name'])

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

    power_timeout_option = '[ironic] power_timeout'

    def power_timeout(self):
        return CONF.ironic.power_timeout

    def refused_power(self, target, response):
        return ('Ironic refused to power off node %s of host %s: %s; the '
                'host must not be evacuated until it is off: power it off '
                'by hand, then retry' % (self.node, self.host,
                                         ironic.said(response)))

    def execute(self):
        node = self.poll(lambda: self.power_step(POWER_OFF))
        if node is None:
            raise self.timed_out('node %s of host %s was not confirmed '
                                 'powered off' % (self.node, self.host))
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
            raise base.ActionError(
                'node %s of host %s is not powered off: %s' % (
                    self.node, self.host, ironic_node.power_state_of(node)))

    def recover(self, started_at):
        """DONE if the node is off, NOT_DONE otherwise (a power action
        under way is waited for first): powering off twice is harmless."""
        return self.recover_power(POWER_OFF)
