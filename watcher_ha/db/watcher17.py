"""Reading an OpenStack Watcher 17 database, for ``import-watcher``.

Only what the import needs: that the database is Watcher 17's, the rows
of the tables it copies (JSON columns decoded), and whether Watcher's own
decision engines and appliers still run. Nothing here writes to it.
"""

import dataclasses

import sqlalchemy as sa

from watcher_ha.db import foreign_db

# The last migration of python-watcher 17.0.0 (its efficacy indicators'
# ``data`` column and its audit templates' ``default_parameters`` came
# with the two before it).
HEAD = 'f56ba02662b4'
# Watcher's earlier migrations, oldest first: a database at one of these
# is Watcher's, not yet upgraded to 17.
EARLIER = ('001', '0f6042416884', 'd098df6021e2', 'd09a5945e4a0',
           '3cfc94cecf4e', 'a86240e89a29', '52804f2498c4', '4b16194c56bc',
           '609bec748f2a', '15f7375ca737', '7150a7d8f228')

# Text columns holding JSON, per table.
JSON_COLUMNS = {
    'goals': ('efficacy_specification',),
    'strategies': ('parameters_spec',),
    'audit_templates': ('scope', 'default_parameters'),
    'audits': ('parameters', 'scope'),
    'action_plans': ('global_efficacy',),
    'actions': ('input_parameters', 'parents'),
}

# The Watcher daemons whose work the import takes over.
DAEMONS = ('watcher-decision-engine', 'watcher-applier')
# Watcher's [DEFAULT] service_down_time: a daemon that beat (every 60 s)
# more recently than this is up.
SERVICE_DOWN_SECONDS = 90


class NotWatcher17(foreign_db.CannotImport):
    pass


@dataclasses.dataclass(frozen=True)
class Daemon:
    name: str
    host: str
    seen_seconds_ago: int


class Source(foreign_db.Source):
    """A Watcher 17 database, opened read-only by convention."""

    Refused = NotWatcher17
    JSON_COLUMNS = JSON_COLUMNS

    def check(self):
        """Raise NotWatcher17 unless the database is at Watcher 17's
        schema."""
        revision = self.revision('alembic_version', 'audits', 'Watcher')
        if revision == HEAD:
            return
        if revision in EARLIER:
            reason = ('its schema is at Watcher revision %s, older than '
                      'Watcher 17\'s %s: upgrade it first with Watcher '
                      '17\'s "watcher-db-manage upgrade"' % (revision, HEAD))
        else:
            reason = ('its schema is at revision %s, which is no Watcher '
                      '17 revision (%s): not a Watcher 17 database'
                      % (revision, HEAD))
        raise NotWatcher17(url=self.label, reason=reason)

    def live_daemons(self, now):
        """The decision engines and appliers Watcher's services table
        shows up at ``now`` (naive UTC)."""
        services = self.table('services')
        with self.engine.connect() as conn:
            found = conn.execute(sa.select(services).where(
                services.c.name.in_(DAEMONS), services.c.deleted == 0))
            live = []
            for row in found:
                seen = row.last_seen_up or row.updated_at or row.created_at
                ago = (now - seen).total_seconds()
                if ago < SERVICE_DOWN_SECONDS:
                    live.append(Daemon(row.name, row.host, max(int(ago), 0)))
        return live
