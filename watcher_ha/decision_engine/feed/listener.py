"""Nova's versioned notifications, and Cinder's when the storage model
is on, received in broadcast mode.

The listener consumes from a pool named after this engine: RabbitMQ gives
each pool its own queue bound to Nova's ``versioned_notifications`` topic
(and to Cinder's ``notifications``), so every decision engine receives
every notification, and the services' other consumers (the plain topic
queue, other pools) lose none. One queue for both keeps each source's
notifications in the order the broker took them.
"""

import threading

import oslo_messaging
from oslo_config import cfg
from oslo_log import log

from watcher_ha.decision_engine.feed import nova_events

CONF = cfg.CONF
LOG = log.getLogger(__name__)

POOL_PREFIX = 'watcher-ha-model-'


def pool_name(host):
    return POOL_PREFIX + host


def notification_transport_url(conf=CONF):
    """The parsed URL of the transport Nova's notifications come on."""
    return oslo_messaging.TransportURL.parse(
        conf, conf.oslo_messaging_notifications.transport_url
        or conf.transport_url)


STORAGE_COLLECTOR = 'storage'
# The services the models' notifications come from.
NOVA, CINDER = 'nova', 'cinder'


def targets_by_source(conf=CONF):
    """{source: Target}: Nova's topic, and Cinder's when the engine runs
    the storage collector."""
    engine = conf.watcher_decision_engine
    found = {NOVA: oslo_messaging.Target(exchange=engine.nova_exchange,
                                         topic=engine.nova_topic)}
    if STORAGE_COLLECTOR in engine.collectors:
        found[CINDER] = oslo_messaging.Target(
            exchange=engine.cinder_exchange, topic=engine.cinder_topic)
    return found


def targets(conf=CONF):
    """Where the models' notifications come from."""
    return list(targets_by_source(conf).values())


def describe(conf=CONF):
    return ', '.join('%s.%s' % (target.exchange, target.topic)
                     for target in targets(conf))


def batch_listener(transport, endpoints, host, conf=CONF,
                   allow_requeue=False, on=None):
    """A batch listener on the models' topics (or the Targets ``on``),
    in ``host``'s pool; started with ``start(override_pool_size=1)``."""
    engine = conf.watcher_decision_engine
    # A batch listener: its poll thread, which reads, decodes and
    # acknowledges every message, is what bounds the rate; batches spare
    # it one executor hand-off per message and let the model apply a
    # burst as one change.
    return oslo_messaging.get_batch_notification_listener(
        transport, on or targets(conf), endpoints, executor='threading',
        pool=pool_name(host), allow_requeue=allow_requeue,
        batch_size=engine.notification_batch_size,
        batch_timeout=engine.notification_batch_timeout)


def events(messages):
    """A batch of notifications as the dispatcher takes them."""
    return [nova_events.Event.from_message(
        message['publisher_id'], message['event_type'],
        message['payload'], message['metadata'] or {})
        for message in messages]


class _Endpoint:
    """Receives a batch of notifications (one priority at a time) and
    queues them for the dispatcher as one batch, in the order the broker
    delivered them."""

    def __init__(self, dispatcher):
        self._dispatcher = dispatcher

    def _receive(self, messages):
        self._dispatcher.submit_many(events(messages))
        return oslo_messaging.NotificationResult.HANDLED

    audit = debug = info = warn = error = critical = sample = _receive


class NovaListener:

    def __init__(self, dispatcher, host, conf=CONF, transports=None):
        """``transports``: {source (NOVA, CINDER): transport} for the
        sources whose notifications do not come on the configured
        notification transport (an embedded simulated cloud's in-process
        buses, one per service: the in-process driver delivers only
        between users of one transport object)."""
        self._dispatcher = dispatcher
        self._host = host
        self._conf = conf
        self._transports = transports or {}
        self._listeners = []

    def _by_transport(self):
        """[(transport, [Target])]: one listener per transport."""
        found = {}
        configured = None
        for source, target in targets_by_source(self._conf).items():
            transport = self._transports.get(source)
            if transport is None:
                if configured is None:
                    configured = oslo_messaging.get_notification_transport(
                        self._conf)
                transport = configured
            found.setdefault(id(transport), (transport, []))[1].append(
                target)
        return list(found.values())

    def start(self):
        for transport, on in self._by_transport():
            consumer = batch_listener(
                transport, [_Endpoint(self._dispatcher)], self._host,
                self._conf, on=on)
            # One executor thread: it only queues each batch for the
            # dispatcher, and alone it queues them in the order the
            # broker delivered them (with the default 64, two batches
            # could swap).
            consumer.start(override_pool_size=1)
            self._listeners.append(consumer)
        LOG.info('Listening to %s notifications in pool %s',
                 describe(self._conf), pool_name(self._host))

    def stop(self):
        _stop(self._take_listeners())

    def _take_listeners(self):
        listeners, self._listeners = self._listeners, []
        return listeners

    def connection_ids(self):
        """The ids the RabbitMQ driver logs its listeners' connections
        under (feed/reconnects.py); none on another driver. They are
        read through oslo.messaging's insides (the server's listener,
        its poll-style listener, its connection), which it does not
        publish: the three controllers' broker test checks the path."""
        found = []
        for consumer in self._listeners:
            adapter = getattr(consumer, 'listener', None)
            polling = getattr(adapter, '_poll_style_listener', None)
            connection = getattr(polling, 'conn', None)
            connection_id = getattr(connection, 'connection_id', None)
            if isinstance(connection_id, str):
                found.append(connection_id)
        return found

    def replace(self):
        """Listen again on new connections; the old listeners are
        stopped in a thread of their own, since one whose connection is
        wedged may never stop (its retries never end). The pool's queue
        kept what arrived meanwhile."""
        old = self._take_listeners()
        self.start()
        threading.Thread(target=_stop, args=(old,), daemon=True,
                         name='stop-replaced-listeners').start()


def _stop(listeners):
    for consumer in listeners:
        consumer.stop()
    for consumer in listeners:
        consumer.wait()
