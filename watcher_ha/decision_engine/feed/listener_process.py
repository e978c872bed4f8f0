"""Nova's notifications read in processes of their own.

oslo.messaging's RabbitMQ driver reads, decodes and acknowledges one
message at a time, on one poll thread, for some 300 µs of CPU each: in the
engine's process, under one interpreter lock, that is about 3,000
notifications a second on a core of its own, whatever the engine does with
them. With ``[watcher_decision_engine] notification_listener_processes =
N``, N child processes consume the engine's pool queue instead (RabbitMQ
spreads its messages among them), and each sends what it receives, a batch
at a time, through a pipe to the engine, whose dispatcher applies them as
before. The rate then grows with the cores the host gives them.

Nothing is lost:

- a child acknowledges a batch only once it is written to its pipe; one
  that dies leaves what it had not acknowledged to the others (RabbitMQ
  requeues it), and the engine starts another in its place;
- a batch written but not yet acknowledged when a child dies arrives
  twice, and the consumers' batches interleave: both are harmless, since a
  model compares each event's stamp with what it holds;
- a child whose engine is gone sees its pipe close: it hands back what it
  holds and exits.

The children take their messaging and logging settings from the engine's
configuration (the values it runs with, overrides included), so they read
from the broker the engine would.
"""

import gc
import multiprocessing
import signal
import threading

import oslo_messaging
from oslo_config import cfg
from oslo_log import log
from oslo_messaging import opts as messaging_opts

from watcher_ha import conf as watcher_conf
from watcher_ha.decision_engine.feed import listener
from watcher_ha.service import service as watcher_service

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# What goes through a child's pipe: to the engine, (READY, pid) once its
# listener consumes, then (EVENTS, [Event, ...]) per batch; to the child,
# STOP.
READY = 'ready'
EVENTS = 'events'
STOP = 'stop'

READY_TIMEOUT = 60
STOP_TIMEOUT = 20
RESTART_DELAY = 2
IN_PROCESS_SCHEMES = ('fake',)
ENGINE_GROUP = 'watcher_decision_engine'


def nova_listener(dispatcher, host, conf=CONF, transports=None,
                  processes=None):
    """The listener ``[watcher_decision_engine]
    notification_listener_processes`` (or ``processes``, if given) asks
    for: NovaListener in this process, or ListenerProcesses."""
    count = (conf.watcher_decision_engine.notification_listener_processes
             if processes is None else processes)
    if not count:
        return listener.NovaListener(dispatcher, host, conf=conf,
                                     transports=transports)
    if transports or _in_process(conf):
        raise cfg.Error(
            'notification_listener_processes = %d needs a message broker '
            'that other processes can reach, and the notifications come '
            'from an in-process bus (fake:// or an embedded simulated '
            'cloud). Set [watcher_decision_engine] '
            'notification_listener_processes = 0, or point '
            '[oslo_messaging_notifications] transport_url at RabbitMQ.'
            % count)
    return ListenerProcesses(dispatcher, host, count, conf=conf)


def _register_messaging_opts(conf):
    # oslo.messaging registers them as its transports are made; a child
    # takes their values before that.
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)


def _in_process(conf):
    _register_messaging_opts(conf)
    return (listener.notification_transport_url(conf).transport
            in IN_PROCESS_SCHEMES)


def _messaging_groups():
    """The groups whose values a child takes from the engine: DEFAULT
    (the transport, logging), oslo.messaging's and the engine's."""
    return [group or 'DEFAULT'
            for group, _ in messaging_opts.list_opts()] + [ENGINE_GROUP]


def engine_settings(conf=CONF):
    """{group: {option: value}}: the values this process runs with for
    every option a listener child reads (oslo.messaging's, logging's and
    the engine's), for ``configure`` in the child."""
    _register_messaging_opts(conf)
    settings = {}
    for group in _messaging_groups():
        section = conf if group == 'DEFAULT' else conf[group]
        values = settings.setdefault(group, {})
        for name in section:
            try:
                value = section[name]
            except cfg.Error:
                continue
            if not isinstance(value, cfg.ConfigOpts.GroupAttr):
                values[name] = value
    return settings


def configure(settings, conf=CONF):
    """In a child: register what the engine registered and take its
    values."""
    watcher_conf.register_opts(conf)
    log.register_options(conf)
    _register_messaging_opts(conf)
    conf([], project=watcher_service.PROJECT, default_config_files=[],
         default_config_dirs=[])
    for group, values in settings.items():
        for name, value in values.items():
            try:
                conf.set_override(
                    name, value, group=None if group == 'DEFAULT' else group)
            except cfg.NoSuchOptError:
                # Registered in the engine by a library this process does
                # not load; a listener does not read it.
                continue


class _Forwarder:
    """A batch endpoint that sends each batch to the engine; the batch is
    acknowledged once sent, and handed back to the queue if the engine is
    gone."""

    def __init__(self, conn):
        self._conn = conn
        self._lock = threading.Lock()

    def send(self, message):
        with self._lock:
            self._conn.send(message)

    def _receive(self, messages):
        try:
            self.send((EVENTS, listener.events(messages)))
        except (OSError, EOFError):
            return oslo_messaging.NotificationResult.REQUEUE
        return oslo_messaging.NotificationResult.HANDLED

    audit = debug = info = warn = error = critical = sample = _receive


def run(conn, host, settings):
    """A listener child's life: consume ``host``'s pool until the engine
    says STOP or its end of the pipe closes."""
    # A service manager's SIGTERM, or a terminal's SIGINT, reaches the
    # whole process group: the engine decides when its children stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    configure(settings)
    log.setup(CONF, watcher_service.PROJECT)
    transport = oslo_messaging.get_notification_transport(CONF)
    # What the process holds now (modules, configuration: some 70,000
    # objects) lives as long as it does: out of the collector's sight, the
    # collections that free the few dozen cyclic objects oslo.messaging
    # and kombu leave per message no longer scan it each time (a fifth of
    # the CPU per message, measured with bench_model_bus).
    gc.freeze()
    forwarder = _Forwarder(conn)
    # Requeue: a batch that could not reach a dead engine stays in its
    # queue for the engine's next life.
    consumer = listener.batch_listener(transport, [forwarder], host,
                                       allow_requeue=True)
    consumer.start(override_pool_size=1)
    try:
        forwarder.send((READY, multiprocessing.current_process().pid))
        conn.recv()
    except (OSError, EOFError):
        LOG.warning('Decision engine gone; notification listener %s '
                    'exits', multiprocessing.current_process().name)
    consumer.stop()
    consumer.wait()
    transport.cleanup()
    conn.close()


class _Child:
    """One listener child, started again when it dies unasked."""

    def __init__(self, number, dispatcher, host, settings):
        self._name = 'notification-listener-%d' % number
        self._dispatcher = dispatcher
        self._host = host
        self._settings = settings
        self._lock = threading.Lock()
        self._stopping = False
        self._conn = None
        self._reader = None
        self.process = None
        self.ready = threading.Event()

    def start(self):
        with self._lock:
            if self._stopping:
                return
            context = multiprocessing.get_context('spawn')
            ours, theirs = context.Pipe()
            self.ready.clear()
            self.process = context.Process(
                target=run, name=self._name, daemon=True,
                args=(theirs, self._host, self._settings))
            self.process.start()
            # Only the child holds its end now: when it dies, ours reads
            # EOF.
            theirs.close()
            self._conn = ours
            self._reader = threading.Thread(
                target=self._read, args=(self.process, ours), daemon=True,
                name=self._name + '-reader')
            self._reader.start()

    def _read(self, process, conn):
        try:
            self._relay(conn)
        except Exception:  # noqa: BLE001
            # Left unread, the child would fill its pipe and stop
            # consuming: better another child.
            LOG.exception('Reading notification listener %s failed; '
                          'killing it', self._name)
            process.kill()
        process.join(STOP_TIMEOUT)
        conn.close()
        with self._lock:
            if self._stopping:
                return
        LOG.error('Notification listener %s (pid %s) exited with code %s; '
                  'starting another in %d s. What it had not acknowledged '
                  'goes to the other listeners.', self._name, process.pid,
                  process.exitcode, RESTART_DELAY)
        threading.Timer(RESTART_DELAY, self.start).start()

    def _relay(self, conn):
        """Pass the child's batches to the dispatcher until its pipe
        closes."""
        while True:
            try:
                kind, body = conn.recv()
            except (OSError, EOFError):
                return
            if kind == EVENTS:
                self._dispatcher.submit_many(body)
            elif kind == READY:
                self.ready.set()

    def stop(self):
        with self._lock:
            self._stopping = True
            conn, reader, process = self._conn, self._reader, self.process
        if conn is None:
            return
        try:
            conn.send(STOP)
        except (OSError, EOFError):
            pass
        reader.join(STOP_TIMEOUT)
        if process.is_alive():
            LOG.warning('Notification listener %s did not stop in %d s; '
                        'killing it', self._name, STOP_TIMEOUT)
            process.kill()
            process.join()


class ListenerProcesses:
    """NovaListener's work done by ``count`` child processes."""

    def __init__(self, dispatcher, host, count, conf=CONF):
        self._dispatcher = dispatcher
        self._host = host
        self._count = count
        self._conf = conf
        self._children = []

    def start(self):
        settings = engine_settings(self._conf)
        self._children = [
            _Child(number, self._dispatcher, self._host, settings)
            for number in range(1, self._count + 1)]
        for child in self._children:
            child.start()
        for child in self._children:
            if not child.ready.wait(READY_TIMEOUT):
                LOG.warning('Notification listener %s is not consuming '
                            'after %d s; it goes on trying',
                            child.process.name, READY_TIMEOUT)
        LOG.info('Listening to %s notifications in pool %s with %d '
                 'processes', listener.describe(self._conf),
                 listener.pool_name(self._host), self._count)

    def pids(self):
        """The pids of the listener processes; one being started again
        has none yet, and is left out."""
        return [child.process.pid for child in self._children
                if child.process is not None
                and child.process.pid is not None]

    def stop(self):
        for child in self._children:
            child.stop()
        self._children = []
