"""An audit pipeline's engine on a small in-memory cloud, for the tests
of the cascade: four 16-vcpu nodes A to D, B busy, and a host_maintenance
stage (A) and a workload_balance stage to plan on them."""

import requests

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


# Through a running cluster's API.

V14 = {'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.4'}
PIPELINE_ENDS = ('SUCCEEDED', 'FAILED', 'CANCELLED')


def template(url, name, goal, strategy, default_parameters=None):
    """A new audit template (default parameters need infra-optim 1.7)."""
    body = {'name': name, 'goal': goal, 'strategy': strategy}
    if default_parameters:
        body['default_parameters'] = default_parameters
    resp = requests.post(url + '/v1/audit_templates', json=body, timeout=10,
                         headers={'OpenStack-API-Version': 'infra-optim 1.7'})
    assert resp.status_code == 201, resp.text
    return resp.json()['uuid']


def create(url, templates, **fields):
    """The uuid of a new ONESHOT cascade of ``templates`` (names)."""
    body = {'audit_type': 'ONESHOT', 'execution_mode': 'cascade',
            'stages': [{'name': name, 'audit_template': name}
                       for name in templates]}
    body.update(fields)
    resp = requests.post(url + '/v1/audit_pipelines', json=body,
                         headers=V14, timeout=10)
    assert resp.status_code == 201, resp.text
    return resp.json()['uuid']


def shown(url, uuid):
    resp = requests.get(url + '/v1/audit_pipelines/' + uuid, headers=V14,
                        timeout=10)
    assert resp.status_code == 200, resp.text
    return resp.json()


def plans_of(url, uuid):
    """[(plan, [its actions])] of the pipeline ``uuid``."""
    found = []
    for plan in requests.get(
            url + '/v1/action_plans?audit_pipeline_uuid=' + uuid,
            headers=V14, timeout=10).json()['action_plans']:
        found.append((plan, requests.get(
            url + '/v1/actions/detail?action_plan_uuid=' + plan['uuid'],
            timeout=10).json()['actions']))
    return found
