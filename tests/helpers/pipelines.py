"""An audit pipeline's engine on a small in-memory cloud, for the tests
of the cascade: four 16-vcpu nodes A to D, B busy, and a host_maintenance
stage (A) and a workload_balance stage to plan on them."""

from tests import static_metrics
from watcher_ha.decision_engine import loaded_plugins
from watcher_ha.decision_engine import pipelines
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state as model_state
from watcher_ha.decision_engine.planner import loader

NODES = ('A', 'B', 'C', 'D')
# server: (host, vcpus, CPU use in percent of its vcpus)
SERVERS = {'s1': ('A', 2, 10.0), 's2': ('B', 4, 100.0),
           's3': ('B', 4, 100.0), 's4': ('B', 4, 90.0), 's5': ('C', 2, 5.0)}
MAINTAIN = ('cluster_maintaining', 'host_maintenance',
            {'maintenance_node': 'A'})
BALANCE = ('workload_balancing', 'workload_balance', {'threshold': 40.0})


def cluster_state():
    changes = model_state.ClusterState().changes()
    for name in NODES:
        changes.put_node(elements.ComputeNode(
            name, uuid='uuid-' + name, vcpus=16, memory_mb=65536,
            disk_gb=1000))
    for uuid, (host, vcpus, _) in SERVERS.items():
        changes.put_instance(elements.Instance(
            uuid, name=uuid, host=host, vcpus=vcpus, memory_mb=2048,
            disk_gb=10))
    return changes.state()


def handler(conf, host='engine-1'):
    model = cluster.ClusterModel('compute')
    model.begin_resync()
    model.finish_resync(cluster_state())
    loaded = loaded_plugins.LoadedPlugins()
    usage = {uuid: cpu for uuid, (_, _, cpu) in SERVERS.items()}
    return pipelines.Handler(
        host, loaded, loader.load(conf, loaded.strategies),
        lambda name: model,
        datasources=[static_metrics.StaticDatasource(
            {'instance_cpu_usage': usage})])
