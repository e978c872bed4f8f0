"""Cluster snapshots for strategy tests and the strategy benchmark:
small hand-made ones, and the reference clusters of
tests/data/reference/clusters/ (the input Watcher 17 was first
benchmarked on), with their metrics for a StaticDatasource."""

import gzip
import json

from tests import reference_data
from tests.helpers import model_states
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state

REFERENCE = reference_data.ROOT / 'clusters'
PROJECT = 'project-1'


def node(name, vcpus=16, memory_mb=32768, disk_gb=1000, **values):
    return elements.ComputeNode(hostname=name, uuid='uuid-' + name,
                                vcpus=vcpus, memory_mb=memory_mb,
                                disk_gb=disk_gb, **values)


def server(name, host, vcpus=1, memory_mb=2048, disk_gb=20, **values):
    values.setdefault('project_id', PROJECT)
    return elements.Instance(uuid='uuid-' + name, name=name, host=host,
                             vcpus=vcpus, memory_mb=memory_mb,
                             disk_gb=disk_gb, **values)


def build(nodes, servers, aggregates=()):
    """A ClusterState of ComputeNode and Instance elements."""
    return model_states.filled(state.ClusterState(), aggregate=aggregates,
                               node=nodes, instance=servers)


class SnapshotModel:
    """A data model that always serves ``snapshot`` (a ClusterState or a
    StorageState), for code that asks an engine for its model."""

    def __init__(self, snapshot):
        self._snapshot = snapshot

    def snapshot(self):
        return self._snapshot

    def info(self):
        return {'generation': self._snapshot.generation}


def reference_path(n_nodes, n_instances):
    return REFERENCE / ('cluster_%d_%d.json.gz' % (n_nodes, n_instances))


def reference_description(n_nodes, n_instances):
    """The description (hosts, servers, metrics) of the reference
    cluster N x M; FileNotFoundError when none of that size is stored."""
    with gzip.open(reference_path(n_nodes, n_instances), 'rt') as f:
        return json.load(f)


def from_reference(description):
    """(ClusterState, {metric: {hostname or uuid: value}}) of a reference
    cluster description (a reference cluster's JSON, or
    cluster_generator.generate()'s)."""
    nodes = [elements.ComputeNode(
        hostname=h['name'], uuid=h['uuid'], vcpus=h['vcpus'],
        memory_mb=h['memory_mb'], disk_gb=h['disk_gb'],
        vcpu_reserved=h['vcpu_reserved'],
        memory_mb_reserved=h['memory_mb_reserved'],
        disk_gb_reserved=h['disk_gb_reserved'],
        vcpu_ratio=h['vcpu_ratio'], memory_ratio=h['memory_ratio'],
        disk_ratio=h['disk_ratio'], state=h['state'], status=h['status'],
        disabled_reason=h['disabled_reason'])
        for h in description['hosts']]
    servers = [elements.Instance(
        uuid=i['uuid'], name=i['name'], host=i['host'], vcpus=i['vcpus'],
        memory_mb=i['memory_mb'], disk_gb=i['disk_gb'], state=i['state'],
        project_id=i['project_id'])
        for i in description['instances']]
    values = {}
    for kind in ('hosts', 'instances'):
        for key, metrics in description['metrics'][kind].items():
            for metric, value in metrics.items():
                values.setdefault(metric, {})[key] = value
    return build(nodes, servers), values


def load_reference(n_nodes, n_instances):
    return from_reference(reference_description(n_nodes, n_instances))
