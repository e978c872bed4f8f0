"""vm_workload_consolidation: pack servers by what they use, measured,
onto fewer compute nodes, and disable the nodes left empty.

As Watcher's strategy of that name, in three steps over the up nodes:

1. Offload: a node whose servers use more CPU than it has (cores in use
   against vcpus x allocation ratio) sheds its least busy servers, one
   by one, until it no longer does. Each goes to the first node with
   room, those with the most servers first; a node that Watcher's
   consolidation disabled earlier (reason ``watcher_disabled``) is used
   as a last resort, and the plan enables it first.
2. Consolidation: the nodes with the fewest servers (the smaller among
   nodes with about as many, then the least busy) are emptied into
   those with the most. Unlike Watcher, a node is
   emptied whole or not touched (see ``consolidation``): a server moved
   off a node that keeps others costs a migration and frees nothing; and
   a node that received servers is not emptied, so no server moves
   twice.
3. Every enabled, up node left without servers is disabled (reason
   ``watcher_disabled``), so that Nova's scheduler keeps it free.

Room is checked twice, as in Watcher 17: by what servers use (CPU cores,
RAM and root disk, from the audit's datasources) against what the node
has, and by Placement's allocations (``Moves``). A node's use is the
larger of its servers' sum and the node's own measure, which also counts
what runs beside them.

Nodes kept for failover or on maintenance (the protected hosts) are left
out altogether: no server leaves or reaches them, and their service is
not disabled. Servers Nova cannot migrate in their state keep their node
in use.
"""

import dataclasses

from oslo_log import log

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import consolidation
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import moves as moves_mod
from watcher_ha.decision_engine.strategy import parameter_specs

LOG = log.getLogger(__name__)

DISABLED_REASON = 'watcher_disabled'
AGGREGATE = 'mean'
CPU = 3     # the measured CPU's position in a Packer's dimensions


class VMWorkloadConsolidation(base.Strategy):
    name = 'vm_workload_consolidation'
    display_name = 'VM Workload Consolidation Strategy'
    goal = 'server_consolidation'
    data_models = ('compute',)
    parameters_spec = moves_mod.parameters_spec({
        'period': parameter_specs.period(3600),
        'granularity': parameter_specs.granularity(),
    })

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        inputs.require_metrics(metrics, self.name,
                               'CPU, RAM and disk usage')
        protected = frozenset(self.protected_hosts)
        available = {h: n for h, n in cluster.nodes.items()
                     if n.state == 'up' and n.status in ('enabled',
                                                         'disabled')}
        reopenable = sorted(
            h for h, n in available.items()
            if n.status == 'disabled' and n.disabled_reason ==
            DISABLED_REASON and h not in protected)
        view = _enabled(cluster, reopenable)
        plan = moves_mod.Moves(view, parameters, protected)
        usage = _usage(cluster, available, metrics, parameters)
        order = consolidation.emptying_order(
            plan, (h for h in available if h not in protected),
            {h: usage.used[h][0] for h in available})
        destinations = [h for h in reversed(order)
                        if h not in reopenable
                        and moves_mod.is_destination(view.nodes[h],
                                                     protected)]
        packer = consolidation.Packer(plan, destinations + reopenable,
                                      usage)
        touched = _offload(packer, plan, sorted(
            order, key=lambda h: (-usage.used[h][0], h)))
        reopened = [h for h in reopenable if plan.instances_on(h)]
        # A node without servers is released: sending it servers would
        # only swap one node in use for another.
        for hostname in available:
            if not plan.instances_on(hostname):
                packer.close(hostname)
        for hostname in order:
            if hostname not in touched and plan.instances_on(hostname):
                packer.empty(hostname)
        released = [n for h, n in sorted(available.items())
                    if n.status == 'enabled' and h not in protected
                    and not plan.instances_on(h)]
        return self._solution(plan, available, reopened, released,
                              parameters)

    def _solution(self, plan, available, reopened, released, parameters):
        solution = self.new_solution()
        in_service = sum(n.status == 'enabled' for n in available.values())
        if not moves_mod.improved_enough(
                in_service,
                in_service - len(released) + len(reopened), parameters):
            consolidation.set_indicators(solution, len(available), 0, 0)
            return solution
        for hostname in reopened:
            consolidation.service_state(solution, available[hostname],
                                        'enabled')
        plan.add_to(solution)
        for node in released:
            consolidation.service_state(solution, node, 'disabled',
                                        DISABLED_REASON)
        # Watcher counts an enabled node as one released less; the
        # indicator cannot go below 0.
        consolidation.set_indicators(
            solution, len(available),
            max(0, len(released) - len(reopened)), len(plan.made))
        return solution


def _enabled(cluster, hostnames):
    """The cluster as the moves see it: ``hostnames`` enabled (the plan
    enables them if it sends them servers)."""
    if not hostnames:
        return cluster
    changes = cluster.changes()
    for hostname in hostnames:
        changes.put_node(dataclasses.replace(
            cluster.nodes[hostname], status='enabled', disabled_reason=None))
    return changes.state()


def _offload(packer, plan, busiest_first):
    """Move the least busy servers off each node that uses more CPU than
    it has until it no longer does; returns the nodes that gave or took
    servers (left out of the consolidation, so no server moves twice)."""
    touched = set()
    for hostname in busiest_first:
        if packer.room[hostname][CPU] >= 0:
            continue
        servers = sorted(plan.instances_on(hostname),
                         key=lambda s: (packer.need(s)[CPU], s.uuid))
        for server in servers:
            destination = packer.place(server)
            if destination is not None:
                touched.update((hostname, destination))
            if packer.room[hostname][CPU] >= 0:
                break
        else:
            LOG.warning('Node %s still uses more CPU than it has: no other '
                        'node has room for its servers', hostname)
    return touched


def _usage(cluster, available, metrics, parameters):
    """What servers and nodes use, as (CPU cores, RAM MB, disk GB),
    from one bulk read per metric. A server without a measure counts
    what its flavor gives it, as in Watcher."""
    options = {'period': parameters['period'],
               'granularity': parameters['granularity'],
               'aggregate': AGGREGATE}
    servers = [s for h in available for s in cluster.instances_on(h)]
    nodes = list(available.values())
    cpu = metrics.instances('instance_cpu_usage', servers, **options)
    ram = metrics.instances('instance_ram_usage', servers, **options)
    disk = metrics.instances('instance_root_disk_size', servers, **options)
    no_ram = [s for s in servers if not ram.get(s.uuid)]
    if no_ram:
        ram.update({uuid: value for uuid, value in metrics.instances(
            'instance_ram_allocated', no_ram, **options).items() if value})
    host_cpu = metrics.hosts('host_cpu_usage', nodes, **options)
    host_ram = metrics.hosts('host_ram_usage', nodes, **options)
    of_server = {}
    for s in servers:
        cores = s.vcpus * cpu[s.uuid] / 100.0 if cpu.get(s.uuid) \
            else s.vcpus
        of_server[s.uuid] = (cores, ram.get(s.uuid) or s.memory_mb,
                             disk.get(s.uuid) or s.disk_gb)
    capacity, used = {}, {}
    for hostname, node in available.items():
        capacity[hostname] = tuple(node.capacity(r)
                                   for r in moves_mod.RESOURCES)
        summed = [0.0, 0.0, 0.0]
        for s in cluster.instances_on(hostname):
            for d, value in enumerate(of_server[s.uuid]):
                summed[d] += value
        # The node's own measures count what runs beside its servers.
        measured_cpu = (host_cpu.get(hostname) or 0) * node.vcpus / 100.0
        measured_ram = (host_ram.get(hostname) or 0) / 1024.0
        used[hostname] = (max(summed[0], measured_cpu),
                          max(summed[1], measured_ram), summed[2])
    return consolidation.Usage(capacity, used, of_server)
