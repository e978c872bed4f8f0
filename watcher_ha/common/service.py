"""Process start-up shared by every watcher_ha command."""

import sys

from oslo_config import cfg
from oslo_log import log

import watcher_ha.conf  # noqa: F401  (registers our options)
from watcher_ha.db import engine

CONF = cfg.CONF
PROJECT = 'watcher-ha'


def prepare_service(argv=None, program=None, conf=None):
    """Parse configuration, set up logging and the database facade."""
    conf = conf or CONF
    log.register_options(conf)
    log.set_defaults(default_log_levels=log.get_default_log_levels() + [
        'stevedore=INFO', 'alembic=WARNING', 'cheroot=WARNING'])
    conf(sys.argv[1:] if argv is None else argv, project=PROJECT,
         prog=program)
    log.setup(conf, PROJECT)
    engine.configure(conf)
    return conf

