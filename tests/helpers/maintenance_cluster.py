"""Compute snapshots made by hand and host_maintenance run on them."""

from watcher_ha.decision_engine.goal import cluster_maintaining
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state
from watcher_ha.decision_engine.strategy import host_maintenance


DEFAULTS = {'disable_live_migration': False, 'disable_cold_migration': False}


def cluster(nodes, servers):
    """nodes: {name: (vcpus, memory_mb, status, state)};
    servers: [(name, host, vcpus, memory_mb, vm_state)]."""
    changes = state.ClusterState().changes()
    for name, (vcpus, memory, status, up) in nodes.items():
        changes.put_node(elements.ComputeNode(
            hostname=name, uuid='uuid-' + name, vcpus=vcpus,
            memory_mb=memory, disk_gb=1000, status=status, state=up))
    for name, host, vcpus, memory, vm_state in servers:
        changes.put_instance(elements.Instance(
            uuid='uuid-' + name, name=name, host=host, vcpus=vcpus,
            memory_mb=memory, disk_gb=10, state=vm_state))
    return changes.state()


def run(snapshot, protected=(), **parameters):
    strategy = host_maintenance.HostMaintenance(
        cluster_maintaining.ClusterMaintaining)
    strategy.protected_hosts = frozenset(protected)
    return strategy.execute({}, dict(DEFAULTS, **parameters),
                            models={'compute': snapshot})


def actions(solution):
    return [(a.action_type, a.input_parameters) for a in solution.actions]
