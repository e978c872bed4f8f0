"""Nova's notifications on a real RabbitMQ reach every decision engine's
model (broadcast: one pool per engine) without robbing Nova's other
consumers, and two engines' models agree after a burst."""

import contextlib
import subprocess
import threading
import time

import oslo_messaging
import pytest

from tests import nova_samples
from tests import servers
from tests.functional.fixtures import wait_for
from watcher_ha.conf import CONF
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import dispatch
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import listener
from watcher_ha.simulator import notifications

LIVE = nova_samples.live()
HOSTS = ['fake-compute-1', 'fake-compute-2', 'fake-compute-3']


@pytest.fixture
def rabbit():
    url, delete = servers.create_rabbit_vhost()
    CONF.set_override('transport_url', url)
    yield url
    CONF.clear_override('transport_url')
    delete()


class Engine:
    """What a decision engine runs for its model: listener, dispatcher,
    model."""

    def __init__(self, host):
        self.model = cluster.ClusterModel()
        self.model.update(lambda changes: [
            changes.put_node(elements.ComputeNode(hostname=h, vcpus=8))
            for h in HOSTS])
        self.dispatcher = dispatch.Dispatcher([dispatch.Handler(
            'compute', r'^nova-', None, self.model.apply,
            handle_many=self.model.apply_many)])
        self.listener = listener.NovaListener(self.dispatcher, host)

    def start(self):
        self.dispatcher.start()
        self.listener.start()

    def stop(self):
        self.listener.stop()
        self.dispatcher.stop()


class PlainConsumer:
    """Another consumer of Nova's topic (e.g. ceilometer), no pool."""

    def __init__(self, transport):
        self.count = 0
        self.lock = threading.Lock()
        self.listener = oslo_messaging.get_notification_listener(
            transport, [oslo_messaging.Target(exchange='nova',
                                              topic='versioned_notifications')],
            [self], executor='threading')

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        with self.lock:
            self.count += 1

    def start(self):
        self.listener.start()

    def stop(self):
        self.listener.stop()
        self.listener.wait()


@contextlib.contextmanager
def nova_notifier():
    """A notifier as Nova has it: its exchange is its control_exchange,
    'nova'. Its connection is closed on leaving."""
    transport = notifications.nova_transport(CONF.transport_url)
    try:
        yield oslo_messaging.Notifier(transport, driver='messagingv2',
                                      topics=['versioned_notifications'])
    finally:
        transport.cleanup()


def test_two_engines_agree_after_a_burst(rabbit):
    engines = [Engine('engine-a'), Engine('engine-b')]
    transport = oslo_messaging.get_notification_transport(CONF)
    other = PlainConsumer(transport)
    for engine in engines:
        engine.start()
    other.start()
    try:
        time.sleep(1)
        sent = 0
        burst = [n for n in sorted(LIVE.values(),
                                   key=lambda n: n['metadata']['timestamp'])
                 if n['event_type'].startswith(('instance.', 'service.'))]
        with nova_notifier() as notifier:
            for _ in range(20):
                for notification in burst:
                    notifier.prepare(
                        publisher_id=notification['publisher_id']).info(
                        {}, notification['event_type'],
                        notification['payload'])
                    sent += 1
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if (all(e.dispatcher.dispatched == sent for e in engines)
                    and other.count == sent):
                break
            time.sleep(0.1)
        assert [e.dispatcher.dispatched for e in engines] == [sent, sent]
        assert other.count == sent
        first, second = (e.model.snapshot() for e in engines)
        assert first.instances == second.instances
        assert first.nodes == second.nodes
        assert first.instances, 'the burst created servers'
    finally:
        other.stop()
        transport.cleanup()
        for engine in engines:
            engine.stop()


def test_a_backlog_reaches_the_handlers_in_broker_order(rabbit,
                                                        monkeypatch):
    """Batches reach the dispatcher in the order the broker delivered
    them, so a server's events are applied in the order Nova sent them
    even before their stamps are compared: also when the dispatcher
    lags (a queue of one, a slow handler) and small batches wait for it."""
    monkeypatch.setattr(dispatch, 'QUEUE_SIZE', 1)
    CONF.set_override('notification_batch_size', 5,
                      group='watcher_decision_engine')
    seen = []

    def handle_many(events):
        time.sleep(0.001)
        seen.extend(e.payload['n'] for e in events)
    dispatcher = dispatch.Dispatcher([dispatch.Handler(
        'recorder', r'', None, lambda e: handle_many([e]),
        handle_many=handle_many)])
    engine_listener = listener.NovaListener(dispatcher, 'engine-order')
    # The first start declares the engine's queue; it then keeps what
    # arrives while the listener is stopped.
    engine_listener.start()
    engine_listener.stop()
    count = 2000
    with nova_notifier() as notifier:
        sender = notifier.prepare(publisher_id='nova-compute:h1')
        for n in range(count):
            sender.info({}, 'instance.update', {'n': n})
    dispatcher.start()
    engine_listener.start()
    try:
        wait_for(lambda: len(seen) >= count, 60, 'the whole backlog')
    finally:
        engine_listener.stop()
        dispatcher.stop()
        CONF.clear_override('notification_batch_size',
                            group='watcher_decision_engine')
    assert seen == list(range(count))


def _vhost(url):
    return url.rsplit('/', 1)[1] or '/'


def _rabbitmqctl(*args):
    return subprocess.run(['rabbitmqctl', *args, '--quiet',
                           '--no-table-headers'], capture_output=True,
                          text=True, check=True).stdout


def _queues(url):
    return set(_rabbitmqctl('list_queues', '-p', _vhost(url),
                            'name').split())


def _connections(url):
    """How many client connections the test's virtual host has
    (list_connections lists every virtual host's)."""
    return _rabbitmqctl('list_connections', 'vhost').split().count(
        _vhost(url))


def test_a_stopped_listener_leaves_no_connection(rabbit):
    """stop() waits for the listener, which closes its connection: a
    stopped listener's connection would otherwise outlive it,
    heartbeating, for the life of the process (stop without wait leaves
    it, and this fails)."""
    engine = Engine('engine-closing')
    engine.start()
    try:
        wait_for(lambda: _connections(rabbit), 10, 'the listener connected')
    finally:
        engine.stop()
    wait_for(lambda: _connections(rabbit) == 0, 10,
             'no connection left in the virtual host')


def test_queue_of_an_engine_gone_for_good_is_deleted(rabbit, api, db):
    import datetime

    from tests import factories
    from watcher_ha.db import models
    from watcher_ha.decision_engine.model import pools
    for host in ('gone-engine', 'away-engine'):
        engine = Engine(host)
        engine.start()
        engine.stop()
    assert {listener.pool_name('gone-engine'),
            listener.pool_name('away-engine')} <= _queues(rabbit)
    old = models.utcnow() - datetime.timedelta(days=2)
    factories.service(db, host='gone-engine', last_seen_up=old)
    factories.service(db, host='away-engine')
    factories.service(db, host='alive-engine', last_seen_up=old)
    gone = pools.gone_engines({'alive-engine'}, expiry=86400)
    # Silent for a day and out of the group: gone. Away for a moment, or
    # in the group: kept.
    assert gone == ['gone-engine']
    assert pools.delete_pools(gone) == ['gone-engine']
    left = _queues(rabbit)
    assert listener.pool_name('gone-engine') not in left
    assert listener.pool_name('away-engine') in left
    # Again: harmless.
    assert pools.delete_pools(gone) == ['gone-engine']
