"""Schema migrations: alembic, driven from Python.

alembic is imported only where a schema is migrated or a revision
history has branches: importing it loads every SQL dialect it supports
and its templating, about a fifth of each daemon's start, when a daemon
only needs to know whether the schema is current (``check_current``).
That much is read here directly: the database's revision from alembic's
own table, the scripts' from their ``revision`` and ``down_revision``.
"""

import ast
import contextlib
import functools
import os
import pathlib

import sqlalchemy as sa
from oslo_log import log

from watcher_ha.db import engine

LOG = log.getLogger(__name__)

# The alembic environment and revisions: inside the package, so that a
# checkout, an editable install and an install from the wheel all find
# them at the same place.
SCRIPT_LOCATION = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), 'migrations')
# Where alembic records a database's revision.
VERSION_TABLE = 'alembic_version'


def _config(connection):
    from alembic import config as alembic_config
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', SCRIPT_LOCATION)
    cfg.attributes['connection'] = connection
    return cfg


@contextlib.contextmanager
def _migrating(bind):
    """A connection in one transaction for the whole migration.

    On SQLite, foreign keys are not enforced meanwhile: a revision that
    changes a column there copies its table, and dropping the old copy
    with foreign keys enforced would delete the rows that refer to it
    (or refuse, for those that may not lose it). The pragma only takes
    effect outside a transaction, so it is set on the driver's connection
    before the migration's transaction begins; the references are checked
    before it commits.
    """
    with (bind or engine.get_engine()).connect() as connection:
        sqlite = connection.dialect.name == 'sqlite'
        driver = connection.connection.dbapi_connection
        if sqlite:
            driver.execute('PRAGMA foreign_keys=OFF')
        try:
            with connection.begin():
                yield connection
                if sqlite:
                    broken = connection.exec_driver_sql(
                        'PRAGMA foreign_key_check').all()
                    if broken:
                        raise RuntimeError(
                            'the migration left rows referring to rows '
                            'that do not exist: %s' % broken)
        finally:
            if sqlite:
                driver.execute('PRAGMA foreign_keys=ON')


def upgrade(revision='head', bind=None):
    """Migrate up; ``bind`` is an engine, by default the configured one."""
    from alembic import command
    with _migrating(bind) as connection:
        command.upgrade(_config(connection), revision)


def downgrade(revision, bind=None):
    from alembic import command
    with _migrating(bind) as connection:
        command.downgrade(_config(connection), revision)


def version(bind=None):
    """The database's current revision, or None if it has none."""
    with (bind or engine.get_engine()).connect() as connection:
        if not sa.inspect(connection).has_table(VERSION_TABLE):
            return None
        found = connection.execute(sa.select(sa.column('version_num'))
                                   .select_from(sa.table(VERSION_TABLE))
                                   ).scalars().all()
    if len(found) > 1:
        raise RuntimeError('the database is at several schema revisions '
                           'at once (%s): it was migrated along branches '
                           'this watcher-ha does not have'
                           % ', '.join(sorted(found)))
    return found[0] if found else None


@functools.cache
def revisions():
    """{revision: the revisions it follows (a tuple)} of the migration
    scripts, from their module-level ``revision`` and ``down_revision``
    as alembic reads them."""
    found = {}
    for path in sorted(pathlib.Path(SCRIPT_LOCATION, 'versions').glob(
            '*.py')):
        names = {}
        for node in ast.parse(path.read_text()).body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id in ('revision',
                                               'down_revision')):
                names[node.targets[0].id] = ast.literal_eval(node.value)
        if 'revision' in names:
            follows = names.get('down_revision')
            found[names['revision']] = (
                () if follows is None else tuple(follows)
                if isinstance(follows, (tuple, list)) else (follows,))
    return found


def head():
    """The revision no script follows: the schema this code needs."""
    known = revisions()
    followed = {parent for parents in known.values() for parent in parents}
    heads = sorted(set(known) - followed)
    if len(heads) != 1:
        # Branches (or no script at all): alembic says what to make of
        # them.
        from alembic import script
        return script.ScriptDirectory(SCRIPT_LOCATION).get_current_head()
    return heads[0]


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
    known = current in revisions()
    if not known:
        LOG.warning('The database %s is at schema revision %s, which this '
                    'watcher-ha (%s) does not know: a newer release '
                    'migrated it', where, current, wanted)
        return
    raise SchemaNotCurrent(
        'the database %s is at schema revision %s and this watcher-ha '
        'needs %s: run "watcher-ha-db-manage upgrade" first'
        % (where, current, wanted))
