"""A model's first full sync that fails is tried again soon, with a
backoff, until it succeeds or the engine stops; later resyncs are tried
once a period."""

import threading

import pytest

from watcher_ha.decision_engine.model import cluster
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
    made = manager.CollectorManager(names=[], conf=conf)
    made.FIRST_SYNC_BACKOFF = (0.01, 0.02)
    made.collectors['flaky'] = Flaky(conf, cluster.ClusterModel('flaky'),
                                     failures)
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
