"""The engine resyncs its models once its broker connections come back
(feed/reconnects.py): on oslo.messaging's own log record, once the
reconnections settle, at most once per interval, never dropped."""

import logging

from oslo_messaging._drivers import impl_rabbit

from watcher_ha.decision_engine.feed import reconnects


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
    driver = reconnects.driver_logger()
    assert driver is impl_rabbit.LOG.logger
    level = driver.level
    driver.setLevel(logging.INFO)
    try:
        _log_reconnected()
        impl_rabbit.LOG.info('[x] Connected to AMQP server on h:1')
        impl_rabbit.LOG.error('[x] AMQP server on h:1 is unreachable')
    finally:
        watch.uninstall()
        driver.setLevel(level)
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
