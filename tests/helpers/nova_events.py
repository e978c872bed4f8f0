"""Nova notifications as the feed receives them, and cluster models they
apply to."""

import datetime

from watcher_ha.decision_engine.feed import nova_events
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements


T0 = datetime.datetime(2026, 11, 22, 6, 0, 0)


def event(notification, stamp=T0, publisher=None):
    return nova_events.Event(
        notification['event_type'],
        publisher or notification.get('publisher_id', ''),
        notification['payload'], stamp)


def node(hostname, **values):
    return elements.ComputeNode(hostname=hostname, vcpus=8, memory_mb=16384,
                                disk_gb=100, stamp=T0 - datetime.timedelta(
                                    hours=1), **values)


def model_with(*hostnames, instances=()):
    model = cluster.ClusterModel(apply_event=nova_events.apply)

    def seed(changes):
        for hostname in hostnames:
            changes.put_node(node(hostname))
        for instance in instances:
            changes.put_instance(instance)
    model.update(seed)
    return model
