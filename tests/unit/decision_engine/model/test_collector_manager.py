"""A model's first full sync that fails is tried again soon, with a
backoff, until it succeeds or the engine stops; later resyncs are tried
once a period. A node a notification names is fetched once the model is
ready, and read again a few times while the source does not have it
yet."""

import threading
import time

import pytest

from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state
from watcher_ha.decision_engine.model.collector import base
from watcher_ha.decision_engine.model.collector import manager


class Flaky(base.Collector):
    name = 'flaky'

    def __init__(self, conf, model, failures):
        super().__init__(conf, model)
        self.failures = failures
        self.builds = 0

    def build(self, stamp):
        self.builds += 1
        if self.builds <= self.failures:
            raise ConnectionError('Nova is not answering yet')
        return state.ClusterState()


def collectors(conf, failures):
    return _manager(conf, Flaky, failures)


def _manager(conf, plugin, *args):
    """A manager of one ``plugin`` collector, retrying at once."""
    made = manager.CollectorManager(names=[], conf=conf)
    made.FIRST_SYNC_BACKOFF = (0.01, 0.02)
    made.REFETCH_DELAYS = (0.01,) * 5
    made.collectors[plugin.name] = plugin(
        conf, cluster.ClusterModel(plugin.name), *args)
    return made


def test_failed_first_sync_is_retried_until_the_model_is_ready(conf):
    made = collectors(conf, failures=3)
    made.resync('flaky')
    assert made.model('flaky').ready
    assert made.get('flaky').builds == 4


def test_later_resyncs_are_tried_once(conf):
    made = collectors(conf, failures=0)
    made.resync('flaky')
    made.get('flaky').failures = 10
    with pytest.raises(ConnectionError):
        made.resync('flaky')
    assert made.get('flaky').builds == 2
    # The model keeps what it had.
    assert made.model('flaky').ready


def test_stopping_ends_the_retries(conf):
    made = collectors(conf, failures=10 ** 6)
    made.FIRST_SYNC_BACKOFF = (0.05, 0.05)
    threading.Timer(0.3, made.stop).start()
    with pytest.raises(ConnectionError):
        made.resync('flaky')
    assert not made.model('flaky').ready
    assert 1 < made.get('flaky').builds < 100


class Late(base.Collector):
    """A collector whose source knows a new node only after a few
    reads (Nova announces a compute service before its hypervisor and
    resource provider exist)."""
    name = 'late'

    def __init__(self, conf, model, misses):
        super().__init__(conf, model)
        self.misses = misses
        self.fetches = []

    def build(self, stamp):
        return state.ClusterState()

    def fetch_node(self, hostname, stamp):
        self.fetches.append(hostname)
        if len(self.fetches) <= self.misses:
            return None
        return elements.ComputeNode(hostname=hostname, uuid='uuid-new',
                                    vcpus=32, stamp=stamp)


def late_collectors(conf, misses):
    return _manager(conf, Late, misses)


def test_a_node_announced_before_nova_has_it_is_read_again(conf):
    made = late_collectors(conf, misses=3)
    made.resync('late')
    model = made.model('late')
    model.update(lambda changes: changes.put_node(elements.ComputeNode(
        hostname='new', status='disabled')))
    made.fetch_missing('late', {'new'})
    deadline = time.monotonic() + 5
    while model.snapshot().node('new').uuid is None:
        assert time.monotonic() < deadline, made.get('late').fetches
        time.sleep(0.01)
    node = model.snapshot().node('new')
    # Capacity from the source, status from the service's notification.
    assert (node.vcpus, node.status) == (32, 'disabled')
    assert made.get('late').fetches == ['new'] * 4


def test_the_tries_run_out(conf):
    made = late_collectors(conf, misses=100)
    made.resync('late')
    model = made.model('late')
    model.update(lambda changes: changes.put_node(elements.ComputeNode(
        hostname='new')))
    made.fetch_missing('late', {'new'})
    time.sleep(0.5)
    assert made.get('late').fetches == ['new'] * 6
    assert model.snapshot().node('new').uuid is None


def test_nothing_is_fetched_before_the_first_sync(conf):
    made = late_collectors(conf, misses=0)
    fetch_after = made._fetching('late', lambda events: {'n1'})
    fetch_after([])
    assert made.get('late').fetches == []
    made.resync('late')
    fetch_after([])
    assert made.get('late').fetches == ['n1']
