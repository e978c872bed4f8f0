"""Process start-up shared by every watcher_ha command."""

import os
import signal
import socket
import sys
import threading

from oslo_config import cfg
from oslo_log import log
from oslo_service import backend
from oslo_service import service
from oslo_service import systemd
from pbr import version as pbr_version

import watcher_ha.conf  # noqa: F401  (registers our options)
from watcher_ha.db import engine
from watcher_ha.db import migration
from watcher_ha.service import metrics_server

CONF = cfg.CONF
LOG = log.getLogger(__name__)
PROJECT = 'watcher-ha'


def version():
    """The installed release of watcher-ha, as its wheel names it: a
    tagged release, or ``<next release>.devN`` between two (setup.cfg
    says how), read from the installed metadata, else from git."""
    return pbr_version.VersionInfo(PROJECT).release_string()


def prepare_service(argv=None, program=None, conf=None):
    """Parse configuration (``--version`` included), set up logging and
    the database facade."""
    if backend.get_backend_type() != backend.BackendType.THREADING:
        sys.exit('oslo.service runs on the %s backend; watcher_ha needs the '
                 'threading backend. Import watcher_ha before any library '
                 'that imports oslo.service.' % backend.get_backend_type())
    conf = conf or CONF
    log.register_options(conf)
    log.set_defaults(default_log_levels=log.get_default_log_levels() + [
        'stevedore=INFO', 'alembic=WARNING', 'cheroot=WARNING',
        'apscheduler=WARNING', 'taskflow=WARNING'])
    conf(sys.argv[1:] if argv is None else argv, project=PROJECT,
         prog=program, version=version())
    log.setup(conf, PROJECT)
    metrics_server.check_multiprocess_dir()
    # The embedded SQLite database and file locks live here.
    os.makedirs(conf.state_path, exist_ok=True)
    engine.configure(conf)
    return conf


def check_schema():
    """Exit, saying what to run, if the database is not migrated for
    this code (rather than fail later on a missing table)."""
    try:
        migration.check_current()
    except migration.SchemaNotCurrent as err:
        sys.exit('Cannot start: %s.' % err)


def run(conf, svc):
    """Run ``svc`` in this process until SIGTERM stops it gracefully.

    SIGHUP re-reads the configuration files and applies the mutable options
    in place (``svc.reset()``): audits and plans in progress go on. Left to
    oslo.service, a SIGHUP would restart a forked worker, aborting the
    actions it runs, or end the main thread of an unforked one.
    """
    check_schema()
    launcher = service.ProcessLauncher(conf, restart_method='mutate',
                                       no_fork=True)

    def reload_in_place(signo, frame):
        # Not in the signal handler: it interrupts the main thread anywhere,
        # possibly holding the logging lock.
        threading.Thread(target=_reload, args=(conf, svc),
                         name='sighup-reload', daemon=True).start()
    signal.signal(signal.SIGHUP, reload_in_place)
    launcher.launch_service(ReportsReady(svc))


def notify(address, message):
    """Send ``message`` (bytes) to systemd's notification socket
    ``address`` (NOTIFY_SOCKET: a path, or ``@`` and an abstract name)."""
    if address.startswith('@'):
        address = '\0' + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(address)
        sock.sendall(message)


class Watchdog:
    """Feeds systemd's watchdog (``WatchdogSec=``): WATCHDOG=1 every half
    of its timeout, from a thread of its own, but only while
    ``stalled()`` (the names of the service's loops that stopped going
    round) names nothing. Once a loop stalls, systemd hears nothing more,
    and after WatchdogSec it kills the service (SIGABRT) and
    ``Restart=on-failure`` starts it again."""

    def __init__(self, stalled, address, interval):
        self._stalled = stalled
        self.address = address
        self.interval = interval
        self._reported = []
        self._stop = threading.Event()

    @classmethod
    def from_environment(cls, stalled, environ=None):
        """The watchdog systemd asks this process for (WATCHDOG_USEC and
        NOTIFY_SOCKET set, WATCHDOG_PID naming this process if set), or
        None."""
        environ = os.environ if environ is None else environ
        address = environ.get('NOTIFY_SOCKET')
        usec = environ.get('WATCHDOG_USEC')
        pid = environ.get('WATCHDOG_PID')
        if not address or not usec or (pid and int(pid) != os.getpid()):
            return None
        return cls(stalled, address, int(usec) / 2e6)

    def start(self):
        LOG.info('Feeding systemd\'s watchdog every %.1f s while the '
                 'service\'s loops go round', self.interval)
        threading.Thread(target=self._loop, name='systemd-watchdog',
                         daemon=True).start()

    def stop(self):
        self._stop.set()

    def _loop(self):
        while not self._stop.wait(self.interval):
            self.feed()

    def feed(self):
        """WATCHDOG=1 if no loop stalled; True if it was sent."""
        try:
            stalled = sorted(self._stalled())
        except Exception as err:  # noqa: BLE001
            stalled = ['the liveness check (%s)' % err]
        if stalled != self._reported:
            if stalled:
                LOG.error('Stalled: %s. systemd\'s watchdog is not fed '
                          'any more: it will restart the service unless '
                          'they go round again', ', '.join(stalled))
            else:
                LOG.warning('Every loop goes round again; feeding '
                            'systemd\'s watchdog again')
            self._reported = stalled
        if stalled:
            return False
        try:
            notify(self.address, b'WATCHDOG=1')
        except OSError as err:
            LOG.warning('Cannot feed systemd\'s watchdog: %s', err)
            return False
        return True


class ReportsReady(service.ServiceBase):
    """``svc``, telling systemd that it is ready (READY=1, for a
    Type=notify unit) once its start() has returned: it serves RPC, has
    joined its group and scheduled its periodic tasks; then feeding
    systemd's watchdog, if the unit has one, while ``svc.stalled()`` names
    no loop. Not under systemd (no NOTIFY_SOCKET in the environment),
    that is a no-op."""

    def __init__(self, svc):
        self.svc = svc
        self.watchdog = None

    def start(self):
        self.svc.start()
        # Read before notify_once() removes NOTIFY_SOCKET.
        self.watchdog = Watchdog.from_environment(
            getattr(self.svc, 'stalled', list))
        # Once: it also removes NOTIFY_SOCKET from the environment, so
        # that the processes started afterwards do not inherit it.
        systemd.notify_once()
        if self.watchdog is not None:
            # Fed until the process exits, its stop included (the drain
            # has bounds of its own: TimeoutStopSec kills a stuck one).
            self.watchdog.start()

    def stop(self, graceful=True):
        self.svc.stop(graceful)

    def wait(self):
        self.svc.wait()

    def reset(self):
        self.svc.reset()


def _reload(conf, svc):
    LOG.info('SIGHUP: reloading the mutable options')
    try:
        conf.mutate_config_files()
        svc.reset()
    except Exception:  # noqa: BLE001
        # A broken file must not take the service down: it keeps running
        # with the options it had.
        LOG.exception('Reloading the configuration failed; the previous '
                      'options stay in force')
        return
    LOG.info('SIGHUP: configuration reloaded')
