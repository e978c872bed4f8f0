"""Ironic's view of the compute hosts: one bare metal node per host,
named after it, deployed (``active``), with the power actions fencing
uses.

A power action is checked and accepted at once, as ironic-conductor does
under the node's lock: the node is reserved, ``target_power_state`` set,
``last_error`` cleared. ``power_seconds`` later the BMC has done it
(nova/hosts.py powers the host off or on, or cycles it) or failed: with the
fault ``bmc_unreachable`` the power state stays and ``last_error`` says
why, with Ironic's words. Another action meanwhile is NodeLocked (409).

Ironic reads each node's power from its BMC every minute; here a node
shows its host's power at once, unless its BMC is unreachable, when it
keeps the last state read.
"""

import dataclasses
import datetime
import uuid as uuidlib

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator.nova import model as nova_model
from watcher_ha.simulator.nova import hosts

POWER_ON = 'power on'
POWER_OFF = 'power off'
# A target -> the power state it ends in.
TARGETS = {'power on': POWER_ON, 'power off': POWER_OFF,
           'reboot': POWER_ON, 'soft reboot': POWER_ON,
           'soft power off': POWER_OFF}
SOFT_TARGETS = ('soft reboot', 'soft power off')
REBOOTS = ('reboot', 'soft reboot')
# Node uuids derive from the hosts' (no draw from the scenario's seed).
NODE_NAMESPACE = uuidlib.UUID('6ba7b812-9dad-11d1-80b4-00c04fd430c8')


@dataclasses.dataclass
class Node:
    uuid: str
    name: str
    power_state: str | None
    target_power_state: str | None = None
    last_error: str | None = None
    # The conductor holding the node's lock while an action runs.
    reservation: str | None = None
    created_at: datetime.datetime = dataclasses.field(
        default_factory=clock_mod.REAL.now)
    updated_at: datetime.datetime | None = None


class Ironic:
    """The nodes, and ironic-conductor's power actions."""

    def __init__(self, cloud, faults=None):
        self.cloud = cloud
        self.faults = faults
        self.conductor = cloud.api_host
        self.nodes = {}
        for host in sorted(cloud.hosts.values(),
                           key=lambda h: h.hypervisor_id):
            self.nodes[host.name] = Node(
                uuid=str(uuidlib.uuid5(NODE_NAMESPACE, host.uuid)),
                name=host.name,
                power_state=POWER_ON if host.powered_on else POWER_OFF,
                created_at=host.created_at)

    def _reachable(self, node):
        return self.faults is None or self.faults.bmc_reachable(node.name)

    def node(self, ident):
        """The node of uuid or name ``ident``, its power state read."""
        found = self.nodes.get(ident)
        if found is None:
            found = next((n for n in self.nodes.values()
                          if n.uuid == ident), None)
        if found is None:
            raise nova_model.Refused(404, 'Node %s could not be found.'
                                     % ident)
        return self._read(found)

    def listed(self):
        return [self._read(node) for node in self.nodes.values()]

    def _read(self, node):
        if self._reachable(node):
            powered = self.cloud.hosts[node.name].powered_on
            node.power_state = POWER_ON if powered else POWER_OFF
        return node

    def set_power(self, node, target):
        """Accept power action ``target`` (one of TARGETS) on ``node``."""
        if node.reservation is not None:
            raise nova_model.Refused(409, 'Node %s is locked by host %s, '
                                          'please retry after the current '
                                          'operation is completed.'
                                     % (node.uuid, node.reservation))
        node.reservation = self.conductor
        node.target_power_state = TARGETS[target]
        node.last_error = None
        node.updated_at = self.cloud.clock.now()
        self.cloud._later(self.cloud.power_seconds, self._done, node,
                          target)

    def _done(self, node, target):
        node.reservation = None
        node.target_power_state = None
        node.updated_at = self.cloud.clock.now()
        wanted = TARGETS[target]
        if not self._reachable(node):
            # Ironic first reads the power state, except for a reboot.
            node.last_error = (
                "Failed to change power state to '%s' by '%s': IPMI call "
                "failed: power off." % (wanted, target)
                if target in REBOOTS else
                "Failed to change power state to '%s': IPMI call failed: "
                "power status." % target)
            return
        host = self.cloud.hosts[node.name]
        if target in REBOOTS:
            hosts.reboot(self.cloud, host)
        elif wanted == POWER_OFF:
            hosts.power_off(self.cloud, host)
        else:
            hosts.power_on(self.cloud, host)
        node.power_state = wanted
