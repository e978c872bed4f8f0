"""Schema migrations: alembic, driven from Python."""

import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration
from alembic import script
from alembic.util import exc as alembic_exc
from oslo_log import log

from watcher_ha.db import engine

LOG = log.getLogger(__name__)

# The alembic environment and revisions: inside the package, so that a
# checkout, an editable install and an install from the wheel all find
# them at the same place.
SCRIPT_LOCATION = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), 'migrations')


def _config(connection):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', SCRIPT_LOCATION)
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
    directory = script.ScriptDirectory(SCRIPT_LOCATION)
    return directory.get_current_head()


class SchemaNotCurrent(Exception):
    """The database's schema is older than this code's."""


def check_current(bind=None):
    """Raise SchemaNotCurrent, saying what to run, unless the database's
    schema is this code's. A schema newer than this code knows (a rolling
    upgrade migrated it for the next release) is left to it, logged."""
    bind = bind or engine.get_engine()
    current, wanted = version(bind), head()
    if current == wanted:
        return
    where = bind.url.render_as_string(hide_password=True)
    if current is None:
        raise SchemaNotCurrent(
            'the database %s has no watcher-ha schema: run '
            '"watcher-ha-db-manage upgrade" first' % where)
    try:
        known = script.ScriptDirectory(SCRIPT_LOCATION).get_revision(
            current) is not None
    except alembic_exc.CommandError:
        known = False
    if not known:
        LOG.warning('The database %s is at schema revision %s, which this '
                    'watcher-ha (%s) does not know: a newer release '
                    'migrated it', where, current, wanted)
        return
    raise SchemaNotCurrent(
        'the database %s is at schema revision %s and this watcher-ha '
        'needs %s: run "watcher-ha-db-manage upgrade" first'
        % (where, current, wanted))
