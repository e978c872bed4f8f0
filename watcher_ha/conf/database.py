"""[database] options come from oslo.db; we only choose the default URL
and the pool's size."""

from oslo_config import cfg
from oslo_db import options as db_options

from watcher_ha.conf import planner

# The embedded default: one SQLite file under [DEFAULT] state_path.
DEFAULT_CONNECTION = 'sqlite:///$state_path/watcher_ha.sqlite'
# Connections kept open (oslo.db's: 5): as many as an applier uses at
# once in the widest step of a plan (each action passes fences and
# writes), so that they are reused. Beyond it, each transaction opens
# and closes a connection of its own (with PyMySQL, a TLS context built
# from the system's certificates too, even for a server without TLS).
DEFAULT_POOL_SIZE = max(planner.WEIGHT_PARALLELIZATION.values())


def set_defaults():
    # On the option objects themselves, so oslo-config-generator shows it.
    cfg.set_defaults(db_options.database_opts,
                     connection=DEFAULT_CONNECTION,
                     max_pool_size=DEFAULT_POOL_SIZE)


def register_opts(conf):
    set_defaults()
    conf.register_opts(db_options.database_opts, group='database')
