"""[database] options come from oslo.db; we only choose the default URL."""

from oslo_config import cfg
from oslo_db import options as db_options

# The embedded default: one SQLite file under [DEFAULT] state_path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/watcher_ha.sqlite'


def set_defaults():
    # On the option objects themselves, so oslo-config-generator shows it.
    cfg.set_defaults(db_options.database_opts,
                     connection=DEFAULT_CONNECTION)


def register_opts(conf):
    set_defaults()
    conf.register_opts(db_options.database_opts, group='database')
