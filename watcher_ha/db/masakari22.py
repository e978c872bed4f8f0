"""Reading an OpenStack Masakari 22 database, for ``import-masakari``.

Only what the import needs: that the database is at Masakari 22's schema,
and the rows of the tables it copies (notification payloads decoded).
Nothing here writes to it.
"""

from watcher_ha.db import foreign_db

# Masakari keeps its alembic revision in a table of its own name.
VERSION_TABLE = 'masakari_alembic_version'
# The last migration of masakari 22.0.0 (notifications' segment UUID and
# message).
HEAD = '13adff5efb9a'
# Its earlier alembic migrations, oldest first.
EARLIER = ('8f848eb45d03', '8bdf5929c5a6')
# Masakari's releases before alembic kept their schema version there.
LEGACY_VERSION_TABLE = 'migrate_version'

JSON_COLUMNS = {'notifications': ('payload',)}

UPGRADE = 'upgrade it first with Masakari 22\'s "masakari-manage db sync"'


class NotMasakari22(foreign_db.CannotImport):
    pass


class Source(foreign_db.Source):
    """A Masakari 22 database, opened read-only by convention."""

    Refused = NotMasakari22
    JSON_COLUMNS = JSON_COLUMNS

    def check(self):
        """Raise NotMasakari22 unless the database is at Masakari 22's
        schema."""
        tables = self.tables()
        if ('failover_segments' in tables and VERSION_TABLE not in tables
                and LEGACY_VERSION_TABLE in tables):
            raise NotMasakari22(
                url=self.label, reason='its schema is still an older '
                'Masakari\'s (sqlalchemy-migrate\'s %s, no %s): %s'
                % (LEGACY_VERSION_TABLE, VERSION_TABLE, UPGRADE))
        revision = self.revision(VERSION_TABLE, 'failover_segments',
                                 'Masakari')
        if revision == HEAD:
            return
        if revision in EARLIER:
            reason = ('its schema is at Masakari revision %s, older than '
                      'Masakari 22\'s %s: %s' % (revision, HEAD, UPGRADE))
        else:
            reason = ('its schema is at revision %s, which is no Masakari '
                      '22 revision (%s): not a Masakari 22 database'
                      % (revision, HEAD))
        raise NotMasakari22(url=self.label, reason=reason)
