"""Schema migrations: alembic, driven from Python."""

import os
import sys
import sysconfig

from alembic import command
from alembic import config as alembic_config
from alembic import migration
from alembic import script

from watcher_ha.db import engine

_CHECKOUT_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), 'alembic')


def script_location():
    """The alembic/ folder of a checkout, else the one pip installed."""
    if os.path.isfile(os.path.join(_CHECKOUT_DIR, 'env.py')):
        return _CHECKOUT_DIR
    for prefix in (sysconfig.get_path('data'), sys.prefix):
        candidate = os.path.join(prefix, 'share', 'watcher-ha', 'alembic')
        if os.path.isfile(os.path.join(candidate, 'env.py')):
            return candidate
    raise RuntimeError('Cannot find the alembic migration scripts; is '
                       'watcher-ha installed completely?')


def _config(connection):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', script_location())
    cfg.attributes['connection'] = connection
    return cfg


def upgrade(revision='head', bind=None):
    """Migrate up; ``bind`` is an engine, by default the configured one."""
    with (bind or engine.get_engine()).begin() as connection:
        command.upgrade(_config(connection), revision)


def downgrade(revision, bind=None):
    with (bind or engine.get_engine()).begin() as connection:
        command.downgrade(_config(connection), revision)


def version(bind=None):
    """The database's current revision, or None if it has none."""
    with (bind or engine.get_engine()).connect() as connection:
        return migration.MigrationContext.configure(
            connection).get_current_revision()


def head():
    directory = script.ScriptDirectory(script_location())
    return directory.get_current_head()
