"""Nova's notifications on a real RabbitMQ reach every decision engine's
model (broadcast: one pool per engine) without robbing Nova's other
consumers, and two engines' models agree after a burst."""

import collections
import contextlib
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import oslo_messaging
import pytest

from tests import nova_samples
from tests.functional.fixtures import wait_for
from tools import children
from watcher_ha.conf import CONF
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import listener
from watcher_ha.decision_engine.feed import listener_process
from watcher_ha.decision_engine.feed import nova_events
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import elements
from watcher_ha.simulator import notifications

LIVE = nova_samples.live()
HOSTS = ['fake-compute-1', 'fake-compute-2', 'fake-compute-3']


class Engine:
    """What a decision engine runs for its model: listener, dispatcher,
    model; ``processes``: its notification_listener_processes."""

    def __init__(self, host, processes=0):
        self.model = cluster.ClusterModel(apply_event=nova_events.apply)
        self.model.update(lambda changes: [
            changes.put_node(elements.ComputeNode(hostname=h, vcpus=8))
            for h in HOSTS])
        self.dispatcher = dispatch.Dispatcher([dispatch.Handler(
            'compute', r'^nova-', None, self.model.apply,
            handle_many=self.model.apply_many)])
        self.listener = listener_process.nova_listener(
            self.dispatcher, host, processes=processes)

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


def publish_numbered(numbers):
    """An instance.update per number, its payload {'n': number}."""
    with nova_notifier() as notifier:
        sender = notifier.prepare(publisher_id='nova-compute:h1')
        for n in numbers:
            sender.info({}, 'instance.update', {'n': n})


def numbers_dispatcher(record, delay):
    """A dispatcher that passes each batch's numbers (see
    publish_numbered), in order, to ``record``, ``delay`` seconds a
    batch."""
    def handle_many(events):
        time.sleep(delay)
        record([e.payload['n'] for e in events])
    return dispatch.Dispatcher([dispatch.Handler(
        'recorder', r'', None, lambda e: handle_many([e]),
        handle_many=handle_many)])


def start_on_a_backlog(engine_listener, dispatcher, host, count):
    """Queue ``count`` numbered notifications for the listener of engine
    ``host``, then start it and its dispatcher."""
    # A listener's first start declares the engine's queue (an in-process
    # one is the quickest); it then keeps what arrives while the listener
    # is stopped.
    declaring = listener.NovaListener(dispatcher, host)
    declaring.start()
    declaring.stop()
    publish_numbered(range(count))
    dispatcher.start()
    engine_listener.start()


def test_two_engines_agree_after_a_burst(rabbit_here):
    """engine-b reads with two listener processes."""
    engines = [Engine('engine-a'), Engine('engine-b', processes=2)]
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


def test_a_backlog_reaches_the_handlers_in_broker_order(
        rabbit_here, config, monkeypatch):
    """Batches reach the dispatcher in the order the broker delivered
    them, so a server's events are applied in the order Nova sent them
    even before their stamps are compared: also when the dispatcher
    lags (a queue of one, a slow handler) and small batches wait for it."""
    monkeypatch.setattr(dispatch, 'QUEUE_SIZE', 1)
    config.config(notification_batch_size=5,
                  group='watcher_decision_engine')
    seen = []
    dispatcher = numbers_dispatcher(seen.extend, delay=0.001)
    engine_listener = listener.NovaListener(dispatcher, 'engine-order')
    count = 2000
    start_on_a_backlog(engine_listener, dispatcher, 'engine-order', count)
    try:
        wait_for(lambda: len(seen) >= count, 60, 'the whole backlog')
    finally:
        engine_listener.stop()
        dispatcher.stop()
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


@pytest.mark.parametrize('processes', [0, 2])
def test_a_stopped_listener_leaves_no_connection(rabbit_here, processes):
    """stop() waits for the listener, which closes its connection: a
    stopped listener's connection would otherwise outlive it,
    heartbeating, for the life of the process (stop without wait leaves
    it, and this fails). Listener processes exit."""
    engine = Engine('engine-closing', processes)
    engine.start()
    pids = getattr(engine.listener, 'pids', list)()
    try:
        wait_for(lambda: _connections(rabbit_here) >= max(processes, 1), 10,
                 'the listeners connected')
    finally:
        engine.stop()
    assert not any(_running(pid) for pid in pids)
    wait_for(lambda: _connections(rabbit_here) == 0, 10,
             'no connection left in the virtual host')


def test_queue_of_an_engine_gone_for_good_is_deleted(rabbit_here, api, db):
    import datetime

    from tests import factories
    from watcher_ha.db import models
    from watcher_ha.decision_engine.feed import pools
    for host in ('gone-engine', 'away-engine'):
        engine = Engine(host)
        engine.start()
        engine.stop()
    assert {listener.pool_name('gone-engine'),
            listener.pool_name('away-engine')} <= _queues(rabbit_here)
    old = models.utcnow() - datetime.timedelta(days=2)
    factories.service(db, host='gone-engine', last_seen_up=old)
    factories.service(db, host='away-engine')
    factories.service(db, host='alive-engine', last_seen_up=old)
    gone = pools.gone_engines({'alive-engine'}, expiry=86400)
    # Silent for a day and out of the group: gone. Away for a moment, or
    # in the group: kept.
    assert gone == ['gone-engine']
    assert pools.delete_pools(gone) == ['gone-engine']
    left = _queues(rabbit_here)
    assert listener.pool_name('gone-engine') not in left
    assert listener.pool_name('away-engine') in left
    # Again: harmless.
    assert pools.delete_pools(gone) == ['gone-engine']


def _running(pid):
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        stat = pathlib.Path('/proc/%d/stat' % pid).read_text()
    except OSError:
        return False
    return stat[stat.rindex(')') + 2] != 'Z'


def test_a_killed_listener_process_loses_nothing(rabbit_here, config):
    """SIGKILL one of two listener processes mid-backlog: what it had not
    acknowledged goes to the other, what it had sent reaches the engine,
    and another process takes its place."""
    config.config(notification_batch_size=5,
                  group='watcher_decision_engine')
    seen = collections.Counter()
    # A slow model: the backlog is still draining at the kill.
    dispatcher = numbers_dispatcher(seen.update, delay=0.002)
    processes = listener_process.ListenerProcesses(dispatcher,
                                                   'engine-killed', 2)
    count = 3000
    start_on_a_backlog(processes, dispatcher, 'engine-killed', count)
    try:
        wait_for(lambda: len(seen) >= count // 4, 60, 'a quarter applied')
        victim = processes.pids()[0]
        os.kill(victim, signal.SIGKILL)
        assert len(seen) < count, 'killed after the backlog was drained'
        wait_for(lambda: len(seen) == count, 60, 'every notification')
        wait_for(lambda: victim not in processes.pids()
                 and len(processes.pids()) == 2
                 and all(_running(pid) for pid in processes.pids()), 30,
                 'a new listener process')
        # Both consume: RabbitMQ spreads these among them.
        publish_numbered(range(count, count + 20))
        wait_for(lambda: len(seen) == count + 20, 30, 'the late ones')
    finally:
        processes.stop()
        dispatcher.stop()
    assert set(seen) == set(range(count + 20))


ORPHANED_ENGINE = """
import sys
import time

from watcher_ha.conf import CONF
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import listener_process

CONF([], project='watcher-ha', default_config_files=[])
CONF.set_override('transport_url', sys.argv[1])
dispatcher = dispatch.Dispatcher([])
dispatcher.start()
processes = listener_process.ListenerProcesses(dispatcher, 'engine-gone', 2)
processes.start()
print(' '.join(str(pid) for pid in processes.pids()), flush=True)
time.sleep(600)
"""


def test_listener_processes_leave_with_their_engine(rabbit_here):
    """An engine killed with SIGKILL cannot stop its listener processes:
    they see their pipe close, and exit, closing their connections (an
    orphan would go on taking the dead engine's notifications)."""
    with children.popen(
            [sys.executable, '-c', ORPHANED_ENGINE, rabbit_here],
            stdout=subprocess.PIPE, text=True,
            cwd=pathlib.Path(__file__).resolve().parents[2]) as engine:
        try:
            pids = [int(pid) for pid in engine.stdout.readline().split()]
            assert len(pids) == 2
            wait_for(lambda: _connections(rabbit_here) == 2, 10,
                     'both listener processes connected')
        finally:
            engine.kill()
    wait_for(lambda: not any(_running(pid) for pid in pids), 20,
             'the listener processes gone')
    wait_for(lambda: _connections(rabbit_here) == 0, 20,
             'no connection left in the virtual host')
