"""Another service's database, read for an import (``import-watcher``,
``import-masakari``): opening it from its URL, its schema revision, its
rows; and what an import reports. Nothing here writes to it.
"""

import dataclasses
import json
import os

import sqlalchemy as sa

from watcher_ha.common import exception
from watcher_ha.db import engine


class CannotImport(exception.WatcherHAError):
    msg_fmt = 'Cannot import from %(url)s: %(reason)s'


@dataclasses.dataclass
class Tally:
    """What an import did with the rows of one table."""
    copied: int = 0
    present: int = 0
    # (the source's UUID, why it was not copied)
    skipped: list = dataclasses.field(default_factory=list)


class DryRun(Exception):
    """Rolls a dry run's writes back, carrying what they were."""

    def __init__(self, tallies):
        super().__init__()
        self.tallies = tallies


def write(context, tables, copy, dry_run):
    """Run ``copy(session, tallies)`` in one transaction of ours and
    return the tallies, {table: Tally} for ``tables``; with ``dry_run``,
    roll it back and return what it would have written."""
    try:
        return _write(context, tables, copy, dry_run)
    except DryRun as rolled_back:
        return rolled_back.tallies


@engine.retry_on_deadlock
def _write(context, tables, copy, dry_run):
    tallies = {table: Tally() for table in tables}
    with engine.writer.using(context) as session:
        copy(session, tallies)
        if dry_run:
            raise DryRun(tallies)
    return tallies


class Source:
    """A database opened read-only by convention. ``Refused`` is the
    CannotImport raised when it cannot be read; ``JSON_COLUMNS`` the text
    columns holding JSON, per table."""

    Refused = CannotImport
    JSON_COLUMNS = {}

    def __init__(self, url):
        try:
            parsed = sa.engine.make_url(url)
        except sa.exc.ArgumentError as err:
            raise self.Refused(url=url, reason='not a database URL (%s)'
                               % err)
        self.label = parsed.render_as_string(hide_password=True)
        if (parsed.get_backend_name() == 'sqlite'
                and parsed.database not in (None, '', ':memory:')
                and not os.path.exists(parsed.database)):
            # SQLite would create an empty file there.
            raise self.Refused(url=self.label, reason='no such file')
        try:
            self.engine = sa.create_engine(parsed)
        except (sa.exc.ArgumentError, ImportError) as err:
            raise self.Refused(url=self.label, reason=err)
        self._metadata = sa.MetaData()

    def close(self):
        self.engine.dispose()

    def tables(self):
        """The names of its tables; Refused if it cannot be read."""
        try:
            with self.engine.connect() as conn:
                return set(sa.inspect(conn).get_table_names())
        except sa.exc.DBAPIError as err:
            raise self.Refused(url=self.label, reason='cannot read it: %s'
                               % err.orig)

    def revision(self, version_table, marker_table, service):
        """The alembic revision in ``version_table``; Refused if the
        database has neither it nor ``marker_table`` (then it is not
        ``service``'s), or cannot be read."""
        tables = self.tables()
        if version_table not in tables or marker_table not in tables:
            raise self.Refused(
                url=self.label, reason='it has no %s tables (%s, %s): not '
                'a %s database' % (service, version_table, marker_table,
                                    service))
        try:
            with self.engine.connect() as conn:
                versions = self.table(version_table)
                return conn.execute(sa.select(
                    versions.c.version_num)).scalar()
        except sa.exc.DBAPIError as err:
            raise self.Refused(url=self.label, reason='cannot read it: %s'
                               % err.orig)

    def table(self, name):
        if name not in self._metadata.tables:
            sa.Table(name, self._metadata, autoload_with=self.engine)
        return self._metadata.tables[name]

    def rows(self, name):
        """Every row of table ``name``, oldest first, as dicts with the
        JSON columns decoded (None where the source stored NULL)."""
        table = self.table(name)
        with self.engine.connect() as conn:
            found = [dict(row._mapping) for row in conn.execute(
                sa.select(table).order_by(table.c.id))]
        for row in found:
            for column in self.JSON_COLUMNS.get(name, ()):
                if row[column] is not None:
                    row[column] = json.loads(row[column])
        return found
