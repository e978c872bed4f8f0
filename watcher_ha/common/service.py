"""Process start-up shared by every watcher_ha command."""

import os
import signal
import sys
import threading

from oslo_config import cfg
from oslo_log import log
from oslo_service import backend
from oslo_service import service
from oslo_service import systemd
from pbr import version as pbr_version

import watcher_ha.conf  # noqa: F401  (registers our options)
from watcher_ha.common import metrics_server
from watcher_ha.db import engine
from watcher_ha.db import migration

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


class ReportsReady(service.ServiceBase):
    """``svc``, telling systemd that it is ready (READY=1, for a
    Type=notify unit) once its start() has returned: it serves RPC, has
    joined its group and scheduled its periodic tasks. Not under systemd
    (no NOTIFY_SOCKET in the environment), that is a no-op."""

    def __init__(self, svc):
        self.svc = svc

    def start(self):
        self.svc.start()
        # Once: it also removes NOTIFY_SOCKET from the environment, so
        # that the processes started afterwards do not inherit it.
        systemd.notify_once()

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
