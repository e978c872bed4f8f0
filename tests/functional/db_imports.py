"""What the tests of watcher-ha-db-manage's imports (import-watcher,
import-masakari) share: a freshly migrated database of ours, the import
run on it, and the summary it prints read back."""

import pytest
import sqlalchemy as sa

from tests import servers
from tests.functional import fixtures


class Ours:
    """A freshly migrated database of ours (no catalog yet), of ``kind``
    (sqlite, mysql, postgresql), the configuration of our daemons on it,
    and the import ``command`` run on it."""

    def __init__(self, tmp, kind, command):
        if kind == 'sqlite':
            self.url = 'sqlite:///%s/watcher_ha.sqlite' % tmp
            self.drop = lambda: None
        else:
            self.url, self.drop = servers.create_database(kind)
        self.command = command
        self.port = fixtures.free_port()
        self.config = fixtures.write_config(
            tmp / 'watcher-ha.conf',
            fixtures.base_config(tmp, self.url, self.port))
        fixtures.db_manage(self.config, 'upgrade')

    def sql(self, statement, **values):
        """Run ``statement`` in a transaction of its own: its rows, if
        it returns any."""
        engine = sa.create_engine(self.url)
        try:
            with engine.begin() as conn:
                result = conn.execute(sa.text(statement), values)
                return result.all() if result.returns_rows else None
        finally:
            engine.dispose()

    def count(self, table):
        return self.sql('SELECT COUNT(*) FROM %s' % table)[0][0]

    def import_(self, url, *extra, check=True):
        """The finished process of the import from ``url``; the test
        fails, with its output, if it fails and ``check``."""
        done = fixtures.run(fixtures.BIN + '/watcher-ha-db-manage',
                            '--config-file', str(self.config), self.command,
                            '--from', url, *extra, check=False)
        if check and done.returncode:
            pytest.fail('%s exited %d:\n%s' % (
                self.command, done.returncode, done.stderr[-3000:]),
                pytrace=False)
        return done


def summary(output, tables):
    """{table: (copied, present, skipped)} from the import's table."""
    counts = {}
    for line in output.splitlines():
        words = line.split()
        if words and words[0] in tables:
            counts[words[0]] = tuple(int(w) for w in words[1:4])
    return counts


def check_refuses_other_databases(ours, tmp_path, reason):
    """The import refuses our own database as its source, saying
    ``reason``, and a SQLite file that is not there, without making
    it."""
    refused = ours.import_(ours.url, check=False)
    assert refused.returncode != 0
    assert reason in refused.stderr, refused.stderr
    missing = ours.import_('sqlite:///%s/none.sqlite' % tmp_path,
                           check=False)
    assert missing.returncode != 0
    assert 'no such file' in missing.stderr, missing.stderr
    assert not (tmp_path / 'none.sqlite').exists()
