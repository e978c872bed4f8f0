"""Choosing where Nova's notifications are read, and what a listener
process takes of its engine's configuration."""

import pytest
from oslo_config import cfg

from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import listener
from watcher_ha.decision_engine.feed import listener_process

GROUP = 'watcher_decision_engine'


@pytest.fixture
def processes(config):
    def set_to(count):
        config.config(group=GROUP, notification_listener_processes=count)
    return set_to


def test_no_processes_reads_in_the_engine(processes):
    processes(0)
    found = listener_process.nova_listener(dispatch.Dispatcher(), 'e1')
    assert isinstance(found, listener.NovaListener)


def test_processes_read_from_a_broker(processes, config):
    processes(2)
    config.config(transport_url='rabbit://guest:guest@broker:5672/')
    found = listener_process.nova_listener(dispatch.Dispatcher(), 'e1')
    assert isinstance(found, listener_process.ListenerProcesses)


def test_processes_cannot_share_the_in_process_bus(processes):
    processes(2)
    # The embedded default: fake://.
    with pytest.raises(cfg.Error, match='notification_listener_processes '
                                        '= 0'):
        listener_process.nova_listener(dispatch.Dispatcher(), 'e1')


def test_processes_cannot_share_an_embedded_cloud_bus(processes, config):
    processes(2)
    config.config(transport_url='rabbit://guest:guest@broker:5672/')
    with pytest.raises(cfg.Error, match='embedded simulated cloud'):
        listener_process.nova_listener(
            dispatch.Dispatcher(), 'e1', transports={'nova': object()})


def test_a_listener_process_runs_with_its_engine_values():
    """What the engine runs with (files or overrides) is what the child
    gets, for the broker, the driver's options, logging and batching."""
    engine = cfg.ConfigOpts()
    listener_process.configure({}, engine)
    engine.set_override('transport_url', 'rabbit://u:p@broker-1:5672/v')
    engine.set_override('heartbeat_timeout_threshold', 17,
                        group='oslo_messaging_rabbit')
    engine.set_override('rabbit_qos_prefetch_count', 300,
                        group='oslo_messaging_rabbit')
    engine.set_override('notification_batch_size', 64, group=GROUP)
    engine.set_override('debug', True)

    child = cfg.ConfigOpts()
    listener_process.configure(listener_process.engine_settings(engine),
                               child)
    assert child.transport_url == 'rabbit://u:p@broker-1:5672/v'
    assert child.oslo_messaging_rabbit.heartbeat_timeout_threshold == 17
    assert child.oslo_messaging_rabbit.rabbit_qos_prefetch_count == 300
    assert child.watcher_decision_engine.notification_batch_size == 64
    assert child.debug is True
