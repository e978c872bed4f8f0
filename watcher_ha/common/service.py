"""Process start-up shared by every watcher_ha command."""

import os
import sys

from oslo_config import cfg
from oslo_log import log
from oslo_service import backend

import watcher_ha.conf  # noqa: F401  (registers our options)
from watcher_ha.db import engine

CONF = cfg.CONF
PROJECT = 'watcher-ha'


def prepare_service(argv=None, program=None, conf=None):
    """Parse configuration, set up logging and the database facade."""
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
         prog=program)
    log.setup(conf, PROJECT)
    # The embedded SQLite database and file locks live here.
    os.makedirs(conf.state_path, exist_ok=True)
    engine.configure(conf)
    return conf

