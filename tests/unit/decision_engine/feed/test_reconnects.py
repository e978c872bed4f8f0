"""The engine resyncs its models once its broker connections come back
(feed/reconnects.py): on oslo.messaging's own log record, once the
reconnections settle, at most once per interval, never dropped."""

import logging

import pytest
from oslo_messaging._drivers import impl_rabbit

from watcher_ha.decision_engine.feed import reconnects


@pytest.fixture(autouse=True)
def driver_logs_info():
    """The driver's INFO records reach the handlers, as with oslo.log's
    default levels in a daemon."""
    driver = reconnects.driver_logger()
    level = driver.level
    driver.setLevel(logging.INFO)
    yield
    driver.setLevel(level)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _resyncer(clock, models=('compute',)):
    done = []
    resyncer = reconnects.ResyncAfterReconnect(
        lambda: models, done.append, clock=clock, settle=2,
        min_interval=60)
    return resyncer, done


def _log_reconnected(host='127.0.0.1', port=5672):
    # Through the RabbitMQ driver's own logger, in its words.
    impl_rabbit.LOG.info(
        '[%(connection_id)s] Reconnected to AMQP server on '
        '%(hostname)s:%(port)s via [%(transport)s] client with port '
        '%(client_port)s.', {'connection_id': 'x', 'hostname': host,
                             'port': port, 'transport': 'amqp',
                             'client_port': 40000})


def test_the_driver_s_reconnection_record_is_seen():
    seen = []
    watch = reconnects.ReconnectWatch(lambda: seen.append(1)).install()
    assert reconnects.driver_logger() is impl_rabbit.LOG.logger
    try:
        _log_reconnected()
        impl_rabbit.LOG.info('[x] Connected to AMQP server on h:1')
        impl_rabbit.LOG.error('[x] AMQP server on h:1 is unreachable')
    finally:
        watch.uninstall()
    _log_reconnected()
    assert seen == [1]


def test_nothing_is_resynced_without_a_reconnection():
    clock = Clock()
    resyncer, done = _resyncer(clock)
    clock.now += 1000
    resyncer.check()
    assert done == []


def test_a_resync_waits_for_the_reconnections_to_settle():
    clock = Clock()
    resyncer, done = _resyncer(clock, models=('compute', 'storage'))
    resyncer.reconnected()
    clock.now += 1
    resyncer.reconnected()
    clock.now += 1.5
    resyncer.check()
    assert done == []
    clock.now += 0.5
    resyncer.check()
    assert done == ['compute', 'storage']
    clock.now += 10
    resyncer.check()
    assert done == ['compute', 'storage']


def test_a_later_reconnection_is_put_off_not_dropped():
    clock = Clock()
    resyncer, done = _resyncer(clock)
    resyncer.reconnected()
    clock.now += 2
    resyncer.check()
    clock.now += 5
    resyncer.reconnected()
    clock.now += 5
    resyncer.check()
    assert done == ['compute']
    clock.now += 50
    resyncer.check()
    assert done == ['compute', 'compute']


def test_a_failed_resync_does_not_stop_the_others():
    clock = Clock()
    done = []

    def resync(name):
        if name == 'compute':
            raise RuntimeError('nova down')
        done.append(name)
    resyncer = reconnects.ResyncAfterReconnect(
        lambda: ['compute', 'storage'], resync, clock=clock, settle=0)
    resyncer.reconnected()
    resyncer.check()
    assert done == ['storage']
    assert resyncer.resyncs == 1


def _log_unreachable(connection_id):
    impl_rabbit.LOG.error(
        '[%(connection_id)s] AMQP server on %(hostname)s:%(port)s is '
        'unreachable: %(err_str)s. Trying again in %(sleep_time)d '
        'seconds.', {'connection_id': connection_id, 'hostname': 'h',
                     'port': 1, 'err_str': 'refused', 'sleep_time': 1})


def _log_reconnected_as(connection_id):
    impl_rabbit.LOG.info(
        '[%(connection_id)s] Reconnected to AMQP server on '
        '%(hostname)s:%(port)s via [%(transport)s] client with port '
        '%(client_port)s.', {'connection_id': connection_id,
                             'hostname': 'h', 'port': 1,
                             'transport': 'amqp', 'client_port': 2})


def test_a_connection_failing_for_long_enough_is_named_until_it_works():
    clock = Clock()
    watch = reconnects.ReconnectWatch(lambda: None, clock=clock).install()
    try:
        _log_unreachable('listener')
        _log_unreachable('rpc')
        clock.now += 1
        _log_reconnected_as('rpc')
        clock.now += 10
        _log_unreachable('listener')
        assert watch.failing(['listener', 'rpc'], seconds=15) == []
        clock.now += 5
        assert watch.failing(['listener', 'rpc'], seconds=15) == [
            'listener']
        _log_reconnected_as('listener')
        assert watch.failing(['listener'], seconds=15) == []
        _log_unreachable('old')
        clock.now += 20
        watch.forget(['old'])
        assert watch.failing(['old'], seconds=15) == []
    finally:
        watch.uninstall()


def test_no_broker_answers_on_a_closed_port():
    import socket
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    assert not reconnects.brokers_answer(
        ['amqp://guest:guest@127.0.0.1:%d//' % port], timeout=1)
