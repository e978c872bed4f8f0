"""The garbage collector's pace in a process holding data models."""

import gc

import oslo_messaging
import pytest

from watcher_ha.conf import CONF
from watcher_ha.decision_engine import manager
from watcher_ha.decision_engine.model import garbage_collection


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_pace_sets_the_young_threshold_and_keeps_the_ratios(thresholds):
    gc.set_threshold(700, 10, 10)
    garbage_collection.pace(50000)
    assert gc.get_threshold() == (50000, 10, 10)


def test_zero_keeps_what_the_interpreter_has(thresholds):
    gc.set_threshold(700, 10, 10)
    garbage_collection.pace(0)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_decision_engine_paces_the_collector_when_it_starts_its_models(
        thresholds, config):
    gc.set_threshold(700, 10, 10)
    config.config(auth_type='none', group='nova')
    config.config(gc_young_threshold=12345, group='watcher_decision_engine')
    transport = oslo_messaging.get_notification_transport(CONF,
                                                          url='fake:/')
    engine = manager.DecisionEngineManager(
        host='gc-test', transports={'nova': transport})
    try:
        engine._start_models()
        assert engine.collectors.list() == ['compute']
        assert gc.get_threshold() == (12345, 10, 10)
    finally:
        if engine._listener is not None:
            engine._listener.stop()
        if engine.dispatcher is not None:
            engine.dispatcher.stop()
        transport.cleanup()
