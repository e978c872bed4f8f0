"""A daemon refuses to start on a database not migrated for it, saying
what to run, instead of failing later on a missing table; a schema newer
than it knows (a rolling upgrade migrated it for the next release) is
left to it."""

import os

import pytest
import sqlalchemy as sa

from tests.functional import fixtures
from watcher_ha.db import migration


def config(tmp_path):
    return fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                 fixtures.base_config(tmp_path))


def start(conf, daemon):
    return fixtures.run(os.path.join(fixtures.BIN, daemon),
                        '--config-file', str(conf), check=False,
                        timeout=60)


@pytest.mark.parametrize('daemon', ['watcher-ha-decision-engine',
                                    'watcher-ha-applier', 'watcher-ha-api'])
def test_an_unmigrated_database_is_refused_saying_what_to_run(tmp_path,
                                                              daemon):
    conf = config(tmp_path)
    refused = start(conf, daemon)
    assert refused.returncode != 0
    assert 'has no watcher-ha schema: run "watcher-ha-db-manage upgrade" ' \
        'first' in refused.stderr, refused.stderr
    assert 'Traceback' not in refused.stderr


def test_an_older_schema_is_refused_a_newer_one_is_not(tmp_path):
    conf = config(tmp_path)
    fixtures.db_manage(conf, 'upgrade', '--revision', '0008')
    refused = start(conf, 'watcher-ha-applier')
    assert refused.returncode != 0
    assert 'is at schema revision 0008 and this watcher-ha needs %s' % (
        migration.head()) in refused.stderr, refused.stderr
    fixtures.db_manage(conf, 'upgrade')
    engine = sa.create_engine('sqlite:///%s/watcher_ha.sqlite' % tmp_path)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET "
                             "version_num = '9999_next_release'"))
    migration.check_current(engine)     # no error: left to the newer one
    engine.dispose()
