"""Which databases import-masakari reads: Masakari 22's schema only, and
for any other what to do, said before anything is read or written."""

import pytest
import sqlalchemy as sa

from watcher_ha.db import masakari22


def _database(tmp_path, *statements):
    url = 'sqlite:///%s/source.sqlite' % tmp_path
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement))
    engine.dispose()
    return url


def _refusal(url):
    source = masakari22.Source(url)
    try:
        with pytest.raises(masakari22.NotMasakari22) as refused:
            source.check()
    finally:
        source.close()
    return str(refused.value)


SEGMENTS = 'CREATE TABLE failover_segments (id INTEGER PRIMARY KEY)'
VERSIONS = ('CREATE TABLE masakari_alembic_version (version_num '
            'VARCHAR(32) NOT NULL)')


def test_masakari_22_schema_is_read(tmp_path):
    url = _database(tmp_path, SEGMENTS, VERSIONS,
                    "INSERT INTO masakari_alembic_version VALUES "
                    "('%s')" % masakari22.HEAD)
    source = masakari22.Source(url)
    try:
        source.check()
    finally:
        source.close()


def test_an_older_alembic_revision_is_sent_to_db_sync(tmp_path):
    url = _database(tmp_path, SEGMENTS, VERSIONS,
                    "INSERT INTO masakari_alembic_version VALUES "
                    "('8bdf5929c5a6')")
    reason = _refusal(url)
    assert 'older than Masakari 22\'s 13adff5efb9a' in reason
    assert 'masakari-manage db sync' in reason


def test_a_schema_from_before_alembic_is_sent_to_db_sync(tmp_path):
    url = _database(tmp_path, SEGMENTS,
                    'CREATE TABLE migrate_version (version INTEGER)',
                    'INSERT INTO migrate_version VALUES (7)')
    reason = _refusal(url)
    assert 'sqlalchemy-migrate' in reason
    assert 'masakari-manage db sync' in reason


def test_an_unknown_revision_is_no_masakari_22(tmp_path):
    url = _database(tmp_path, SEGMENTS, VERSIONS,
                    "INSERT INTO masakari_alembic_version VALUES ('abc')")
    assert 'not a Masakari 22 database' in _refusal(url)


def test_other_databases_are_not_masakari(tmp_path):
    url = _database(tmp_path, 'CREATE TABLE audits (id INTEGER)')
    assert 'not a Masakari database' in _refusal(url)
    with pytest.raises(masakari22.NotMasakari22, match='not a database URL'):
        masakari22.Source('no url')
