"""[database] options come from oslo.db; we only choose the default URL."""

from oslo_db import options as db_options


def default_connection(state_path='$state_path'):
    return 'sqlite:///%s/watcher_ha.sqlite' % state_path


def register_opts(conf):
    db_options.set_defaults(conf, connection=default_connection())
