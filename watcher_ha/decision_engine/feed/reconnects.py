"""A resync of the models once the engine's broker connections come back.

While an engine's connection to RabbitMQ is down, its models may miss
notifications for good: a classic (non-quorum) pool queue dies with the
node that held it, and whatever Nova routed to it until the engine
declared it again on another node is gone; a publisher's message in
flight to a node that dies is gone whatever the queue's kind. The model
would then be wrong until its next periodic resync, an hour later by
default.

oslo.messaging reconnects by itself (to the next host of
``transport_url``) and declares its queues again, but tells its user
nothing of it: it only logs ``Reconnected to AMQP server``. So the engine
watches that log record of the RabbitMQ driver (ReconnectWatch, a logging
handler) and, once the reconnections have settled, resyncs every model
that had a full sync (ResyncAfterReconnect, run by a periodic task of
its own). A resync is idempotent (what arrives meanwhile is replayed
onto it), so a reconnection of a connection that lost nothing (the
notifier's, the RPC server's) costs a read of the cloud and nothing
else; several within ``SETTLE_SECONDS`` of each other cost one, and two
resyncs for reconnections are at least ``MIN_INTERVAL_SECONDS`` apart (a
flapping broker does not make the engine read the cloud in a loop; the
later resync is put off, not dropped).

A connection can also stay wedged: with oslo.messaging 18.3 and kombu
5.7 a listener whose node was killed was once seen trying that dead node
again every second for good, while the process's other connections had
reconnected to the living ones (the three controllers' broker test).
The watch also follows each connection's failures (the driver's ``is
unreachable`` record): one of the model feed's listeners failing for
STUCK_SECONDS while a broker of ``transport_url`` answers a connection
of its own (brokers_answer) is replaced by a new listener, on a new
connection (the engine's feed watch, decision_engine/manager.py), and
the models resync. With every broker down nothing is replaced: the
listener waits for one, as a new one would.

What it cannot see: a reconnection logged in another process
(``notification_listener_processes`` children). And a notification a
publisher lost while the engine's connections stayed up (a node they
were not connected to died) is only corrected by the periodic resync.
"""

import logging
import threading
import time

import kombu
from kombu.utils import url as kombu_url
from oslo_log import log

LOG = log.getLogger(__name__)

# The module of oslo.messaging's RabbitMQ driver, whose logger writes the
# record, and the words of its record for a connection made again after
# a failure.
RABBIT_DRIVER = 'oslo_messaging._drivers.impl_rabbit'
RECONNECTED = 'Reconnected to AMQP server'
UNREACHABLE = 'is unreachable'
# How long a connection of the feed may fail while others get through
# before its listener is replaced: a failover takes a second or two
# (rabbit_retry_interval, then the next host).
STUCK_SECONDS = 15.0
# How long after the last reconnection the resync waits: the driver
# declares the queues again and resumes consuming right after its record,
# and the engine's connections fail over one after the other.
SETTLE_SECONDS = 2.0
# The least time between two resyncs made for reconnections.
MIN_INTERVAL_SECONDS = 60.0
# How long the feed watch waits for a broker to accept its probe.
BROKER_PROBE_SECONDS = 3
# How often the periodic task looks.
CHECK_SECONDS = 1.0


class ReconnectWatch(logging.Handler):
    """Calls ``on_reconnect()`` for each reconnection the RabbitMQ driver
    logs (it must log at INFO: oslo.log's default for oslo.messaging),
    and keeps, for each connection failing, when it began."""

    def __init__(self, on_reconnect, clock=time.monotonic):
        super().__init__(level=logging.INFO)
        self._on_reconnect = on_reconnect
        self._clock = clock
        self._lock = threading.Lock()
        # {connection id: monotonic time of its first failure since it
        # last got through}.
        self._failing = {}

    def emit(self, record):
        # The template, not the message: its arguments name the host.
        template = str(record.msg)
        if RECONNECTED in template:
            with self._lock:
                self._failing.pop(_connection_of(record), None)
            self._on_reconnect()
        elif UNREACHABLE in template:
            with self._lock:
                self._failing.setdefault(_connection_of(record),
                                         self._clock())

    def failing(self, connection_ids, seconds=STUCK_SECONDS):
        """Those of ``connection_ids`` failing for ``seconds`` or more
        without getting through."""
        now = self._clock()
        with self._lock:
            return sorted(
                connection for connection in connection_ids
                if connection in self._failing
                and now - self._failing[connection] >= seconds)

    def forget(self, connection_ids):
        """Connections closed for good (a replaced listener's)."""
        with self._lock:
            for connection in connection_ids:
                self._failing.pop(connection, None)

    def install(self):
        driver_logger().addHandler(self)
        return self

    def uninstall(self):
        driver_logger().removeHandler(self)


def brokers_answer(urls, timeout=BROKER_PROBE_SECONDS):
    """Whether one of the brokers (kombu URLs) accepts a connection."""
    for url in urls:
        try:
            with kombu.Connection(url, connect_timeout=timeout) as conn:
                conn.ensure_connection(max_retries=1)
            return True
        except Exception as err:  # noqa: BLE001 - any failure: not it
            LOG.debug('Broker %s does not answer: %s',
                      kombu_url.maybe_sanitize_url(url), err)
    return False


def _connection_of(record):
    """The connection id of a driver's record (its arguments are a dict
    that names it)."""
    args = record.args
    return args.get('connection_id') if isinstance(args, dict) else None


def driver_logger():
    """The standard library's logger the driver writes to: oslo.log
    names it, as it names every ``oslo_*`` module's, ``oslo.*``."""
    return log.getLogger(RABBIT_DRIVER).logger


class ResyncAfterReconnect:
    """Resyncs ``models()`` (names) with ``resync(name)`` once
    reconnections have settled; ``check()`` is the periodic task."""

    def __init__(self, models, resync, clock=time.monotonic,
                 settle=SETTLE_SECONDS, min_interval=MIN_INTERVAL_SECONDS):
        self._models = models
        self._resync = resync
        self._clock = clock
        self._settle = settle
        self._min_interval = min_interval
        self._lock = threading.Lock()
        # Monotonic time of the last reconnection not yet resynced for,
        # and of the start of the last resync made for one.
        self._pending_since = None
        self._last_resync = None
        self.resyncs = 0

    def reconnected(self):
        """A connection came back (called from whatever thread logs)."""
        with self._lock:
            self._pending_since = self._clock()

    def due(self):
        with self._lock:
            if self._pending_since is None:
                return False
            now = self._clock()
            return (now - self._pending_since >= self._settle and (
                self._last_resync is None
                or now - self._last_resync >= self._min_interval))

    def check(self):
        if not self.due():
            return
        with self._lock:
            self._pending_since = None
            self._last_resync = self._clock()
        names = list(self._models())
        LOG.warning('The connection to the message broker was lost and '
                    'made again: resyncing the %s model(s), which may have '
                    'missed notifications meanwhile', ', '.join(names))
        self.resyncs += 1
        for name in names:
            try:
                self._resync(name)
            except Exception:  # noqa: BLE001
                # Logged by the resync; the periodic one comes later.
                LOG.warning('The %s model keeps what it has until its '
                            'next resync', name)
