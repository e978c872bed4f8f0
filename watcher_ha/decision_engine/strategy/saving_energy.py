"""saving_energy: power off the empty compute hosts beyond a free
margin, and power on powered-off ones when the margin is short.

As Watcher 17's strategy of that name, it works on the compute hosts
that Ironic manages: a bare metal node is a compute host's when its
``extra`` names the host's compute node (``compute_node_id``, the
hypervisor's uuid, which is the host's Placement provider uuid, as the
data model keeps it). The hosts the model has (the audit's scope) and
no node names are left alone. The margin is the number of empty,
powered-on hosts to keep::

    int(max(hosts holding servers * free_used_percent / 100,
            min_free_hosts_num))

Beyond it, empty powered-on hosts are powered off; short of it, empty
powered-off hosts are powered on, as many as there are.

Beyond Watcher, a host is powered off only when nothing holds it: no
server in the model, nothing the model counted in Placement beyond its
servers, and no allocation Placement has against it now (read at the
audit, so a server scheduled there since the model's last read, or one
the audit's scope leaves out, keeps its host on). A host whose
allocations cannot be read counts as held. The failover segments'
reserved hosts, the hosts claimed by a recovery and those on maintenance
(``protected_hosts``), and the nodes Ironic has on maintenance, are
never powered off or on, nor counted as free. The other hosts of an
enabled failover segment count as free when they are, but are not
powered off: Masakari's monitors and watcher_ha's own detection would
take the powered-off host for a failed one, and its recovery would put
it on maintenance. A node with a power action under way counts in the
state it goes to, and is not acted on. Where
Watcher picks at random, the choice here is ordered (see ``_off_first``
and ``_on_first``), so one cloud gives one plan.

Ironic is read once per audit (every node, page by page, only the fields
used); Placement once per host the model sees empty.
"""

import collections
import dataclasses

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg

from watcher_ha.cloud import clients
from watcher_ha.cloud import ironic
from watcher_ha.common import context as watcher_context
from watcher_ha.db import watched_hosts
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import parameter_specs

CONF = cfg.CONF

ON, OFF = 'on', 'off'
# Ironic's power states -> on or off, as Watcher reads them; any other
# (None: never read, 'error') is unknown and the node is left alone.
POWER_STATES = {'power on': ON, 'rebooting': ON, 'soft reboot': ON,
                'power off': OFF, 'soft power off': OFF}
NODE_FIELDS = ('uuid', 'name', 'power_state', 'target_power_state',
               'maintenance', 'extra')
# Ironic's default [api] max_limit: the most nodes one page holds.
PAGE = 1000


@dataclasses.dataclass(frozen=True)
class BareMetalNode:
    """A node as Ironic shows it, with what the strategy reads."""
    uuid: str
    name: str | None = None
    power_state: str | None = None
    target_power_state: str | None = None
    maintenance: bool = False
    # extra.compute_node_id: the compute node (hypervisor uuid) it runs.
    compute_node_id: str | None = None

    @property
    def power(self):
        """ON or OFF once any power action under way ends; None when
        unknown."""
        return POWER_STATES.get(self.target_power_state
                                or self.power_state)

    @property
    def busy(self):
        return self.target_power_state is not None


@dataclasses.dataclass(frozen=True)
class Host:
    """A compute host of the model and its bare metal node."""
    node: BareMetalNode
    compute: object     # its ComputeNode
    # A host of an enabled failover segment: never powered off.
    watched: bool = False

    @property
    def hostname(self):
        return self.compute.hostname


@dataclasses.dataclass
class Pools:
    """The mapped hosts, as Watcher sorts them, and the ones the
    strategy may act on."""
    with_servers: list = dataclasses.field(default_factory=list)
    free_on: list = dataclasses.field(default_factory=list)
    free_off: list = dataclasses.field(default_factory=list)

    def actionable(self, pool):
        return [host for host in pool if not host.node.busy]

    def to_power_off(self):
        return [host for host in self.actionable(self.free_on)
                if not host.watched]


class SavingEnergy(base.Strategy):
    name = 'saving_energy'
    display_name = 'Saving Energy Strategy'
    goal = 'saving_energy'
    data_models = ('compute',)
    parameters_spec = {'properties': {
        'free_used_percent': parameter_specs.number(
            'a rational number, which describes the quotient of '
            'min_free_hosts_num/nodes_with_VMs_num where '
            'nodes_with_VMs_num is the number of nodes with VMs',
            10.0, minimum=0),
        'min_free_hosts_num': parameter_specs.number(
            'minimum number of hosts without VMs but still powered on',
            1, minimum=0),
    }}

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        nodes = read_nodes()
        watched = watched_hosts.watched(watcher_context.admin_context())
        pools = sort_hosts(cluster, nodes, self.protected_hosts,
                           watched=frozenset(watched),
                           allocated=held_in_placement)
        solution = self.new_solution()
        for host, state in decide(pools, parameters['free_used_percent'],
                                  parameters['min_free_hosts_num']):
            solution.add_action('change_node_power_state', {
                'resource_id': host.node.uuid,
                'resource_name': host.hostname,
                'state': state})
        return solution


def margin(hosts_with_servers, free_used_percent, min_free_hosts_num):
    """The empty powered-on hosts to keep: Watcher's formula."""
    return int(max(hosts_with_servers * free_used_percent / 100,
                   min_free_hosts_num))


def decide(pools, free_used_percent, min_free_hosts_num):
    """[(Host, ON or OFF)]: the power changes that bring the free
    powered-on hosts to the margin, as far as the actionable ones
    allow."""
    wanted = margin(len(pools.with_servers), free_used_percent,
                    min_free_hosts_num)
    have = len(pools.free_on)
    if have > wanted:
        chosen = sorted(pools.to_power_off(),
                        key=_off_first)[:have - wanted]
        return [(host, OFF) for host in chosen]
    if have < wanted:
        chosen = sorted(pools.actionable(pools.free_off),
                        key=_on_first)[:wanted - have]
        return [(host, ON) for host in chosen]
    return []


def _in_service(compute):
    return compute.state == 'up' and compute.status == 'enabled'


def _off_first(host):
    """Powered off first: the hosts Nova schedules nothing on anyway
    (down or disabled), so the ones kept on are the free capacity the
    margin counts; then by name."""
    return (_in_service(host.compute), host.hostname)


def _on_first(host):
    """Powered on first: the hosts down in Nova (a powered-off host's
    compute service stops reporting) whose service is enabled, which
    take servers as soon as they boot; then those an operator or a
    strategy disabled, which boot but stay disabled; last those Nova
    still reports up although Ironic reads them off (a stale reading or
    a wrong mapping); then by name."""
    compute = host.compute
    return (compute.state == 'up', compute.status != 'enabled',
            host.hostname)


def sort_hosts(cluster, nodes, protected=frozenset(), watched=frozenset(),
               allocated=None):
    """Pools of the model's hosts that Ironic nodes name. ``protected``:
    the hostnames left alone; ``watched``: those never powered off;
    ``allocated``: a function of the ComputeNodes the model sees empty,
    giving the hostnames among them that Placement shows held (None:
    Placement not asked)."""
    by_uuid = {compute.uuid: compute for compute in cluster.nodes.values()
               if compute.uuid}
    named = collections.Counter(node.compute_node_id for node in nodes)
    pools = Pools()
    empty = []
    for node in sorted(nodes, key=lambda n: n.uuid):
        compute = by_uuid.get(node.compute_node_id)
        if compute is None or named[node.compute_node_id] > 1:
            # Not in the model (nor the audit's scope), or two nodes
            # claim one host: which machine runs it is unknown.
            continue
        host = Host(node, compute, compute.hostname in watched)
        if _holds_servers(cluster, compute):
            pools.with_servers.append(host)
        elif not (node.maintenance or compute.hostname in protected
                  or node.power is None):
            empty.append(host)
    held = allocated([h.compute for h in empty]) if (
        allocated and empty) else frozenset()
    for host in empty:
        if host.hostname in held:
            pools.with_servers.append(host)
        elif host.node.power == ON:
            pools.free_on.append(host)
        else:
            pools.free_off.append(host)
    return pools


def _holds_servers(cluster, compute):
    return bool(cluster.placement.get(compute.hostname)) or any(
        compute.held(resource) for resource in ('vcpus', 'memory_mb',
                                                'disk_gb'))


# Reading the cloud.

def read_nodes(conf=CONF):
    """Every Ironic node, page after page."""
    reason = clients.configured(conf, clients.IRONIC_GROUP)
    if reason:
        raise base.StrategyError('saving_energy reads the compute hosts\' '
                                 'power from Ironic: %s' % reason)
    ironic_api = clients.ironic(conf)
    params = {'fields': ','.join(NODE_FIELDS), 'limit': PAGE}
    found = []
    while True:
        body = _get(ironic_api, '/v1/nodes', 'list the bare metal nodes',
                    'Ironic', params=params)
        page = body.get('nodes') or []
        found.extend(_node(item) for item in page)
        if not page or 'next' not in body:
            return found
        params = dict(params, marker=page[-1]['uuid'])


def _node(item):
    extra = item.get('extra') or {}
    return BareMetalNode(
        uuid=item['uuid'], name=item.get('name'),
        power_state=item.get('power_state'),
        target_power_state=item.get('target_power_state'),
        maintenance=bool(item.get('maintenance')),
        compute_node_id=extra.get('compute_node_id'))


def held_in_placement(computes, conf=CONF):
    """The hostnames of ``computes`` that Placement has allocations
    against, or whose allocations it cannot show (so that no host is
    powered off on a guess)."""
    placement = clients.placement(conf)
    held = set()
    for compute in computes:
        response = _request(placement, '/resource_providers/%s/allocations'
                            % compute.uuid, 'read the allocations of %s'
                            % compute.hostname, 'Placement')
        if response.status_code != 200 or response.json().get(
                'allocations'):
            held.add(compute.hostname)
    return frozenset(held)


def _request(adapter, path, doing, service, **kwargs):
    try:
        return adapter.get(path, raise_exc=False, **kwargs)
    except ks_exc.ClientException as err:
        raise base.StrategyError(
            'saving_energy could not %s: %s is unreachable (%s); check '
            'its options in the configuration' % (doing, service, err))


def _get(adapter, path, doing, service, **kwargs):
    response = _request(adapter, path, doing, service, **kwargs)
    if response.status_code != 200:
        raise base.StrategyError('saving_energy could not %s: %s'
                                 % (doing, ironic.said(response)))
    return response.json()
