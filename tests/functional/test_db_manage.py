"""watcher-ha-db-manage, run as operators run it."""

import datetime

import sqlalchemy as sa

from tests import factories
from tests.functional import fixtures
from watcher_ha.common import plugins
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import AuditState
from watcher_ha.db import migration
from watcher_ha.db import models


def config(tmp_path):
    return fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                 fixtures.base_config(tmp_path))


def test_upgrade_version_sync_downgrade(tmp_path):
    conf = config(tmp_path)
    out = fixtures.db_manage(conf, 'version').stdout
    assert 'current: None' in out
    head = migration.head()
    assert 'Database is at revision %s.' % head in fixtures.db_manage(
        conf, 'upgrade').stdout
    assert 'current: %s\nhead: %s' % (head, head) in fixtures.db_manage(
        conf, 'version').stdout
    fixtures.db_manage(conf, 'sync')
    engine = sa.create_engine('sqlite:///%s/watcher_ha.sqlite' % tmp_path)
    with engine.connect() as conn:
        goals = conn.execute(sa.select(models.Goal.name)).scalars().all()
    assert sorted(goals) == sorted(plugins.load_classes(plugins.GOALS))
    fixtures.db_manage(conf, 'downgrade', 'base')
    assert sa.inspect(engine).get_table_names() == ['alembic_version']


def test_revisions_as_watcher_db_manage_takes_them(tmp_path):
    """--revision, as Watcher's watcher-db-manage; a downgrade without
    one says what it needs; and no eventlet deprecation notice (nine
    lines on every command before)."""
    conf = config(tmp_path)
    done = fixtures.db_manage(conf, 'upgrade', '--revision', '0008')
    assert 'Database is at revision 0008.' in done.stdout
    assert 'Eventlet' not in done.stderr, done.stderr
    assert 'Database is at revision %s.' % migration.head() in \
        fixtures.db_manage(conf, 'upgrade').stdout
    refused = fixtures.run(fixtures.BIN + '/watcher-ha-db-manage',
                           '--config-file', str(conf), 'downgrade',
                           check=False)
    assert refused.returncode != 0
    assert 'downgrade needs the revision' in refused.stderr
    assert 'Database is at revision 0007.' in fixtures.db_manage(
        conf, 'downgrade', '--revision', '0007').stdout


def test_purge_removes_only_old_archived_rows(tmp_path):
    conf = config(tmp_path)
    fixtures.db_manage(conf, 'upgrade')
    fixtures.db_manage(conf, 'sync')
    engine = sa.create_engine('sqlite:///%s/watcher_ha.sqlite' % tmp_path)
    old = models.utcnow() - datetime.timedelta(days=40)
    recent = models.utcnow() - datetime.timedelta(days=2)
    archived_old = factories.audit(engine, state=AuditState.DELETED,
                                   deleted_at=old)
    archived_recent = factories.audit(engine, state=AuditState.DELETED,
                                      deleted_at=recent)
    live = factories.audit(engine)
    plan, _ = factories.action_plan(engine, live, indicators=[('x', 1.0)])
    with engine.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).values(
            state=ActionPlanState.DELETED, deleted_at=old))
    dry = fixtures.db_manage(conf, 'purge', '-d', '30', '--dry-run').stdout
    assert 'audits: 1 row(s) would be deleted' in dry
    assert 'actions: 2 row(s) would be deleted' in dry
    out = fixtures.db_manage(conf, 'purge', '--age-in-days', '30').stdout
    assert 'audits: 1 row(s) deleted' in out
    assert 'action_plans: 1 row(s) deleted' in out
    assert 'actions: 2 row(s) deleted' in out
    with engine.connect() as conn:
        audits = set(conn.execute(sa.select(models.Audit.uuid)).scalars())
        assert conn.execute(sa.select(sa.func.count()).select_from(
            models.EfficacyIndicator)).scalar() == 0
    assert audits == {archived_recent['uuid'], live['uuid']}
    assert archived_old['uuid'] not in audits
    bad = fixtures.run(fixtures.BIN + '/watcher-ha-db-manage',
                       '--config-file', str(conf), 'purge',
                       '--age-in-days', '-1', check=False)
    assert bad.returncode != 0 and 'must be 0 or more' in bad.stderr


def test_sync_prunes_only_when_asked(tmp_path):
    conf = config(tmp_path)
    fixtures.prepare_database(conf)
    engine = sa.create_engine('sqlite:///%s/watcher_ha.sqlite' % tmp_path)
    with engine.begin() as conn:
        conn.execute(sa.insert(models.Goal).values(
            uuid='5e1c1b0e-0000-4000-8000-000000000001', name='retired',
            display_name='Retired goal', efficacy_specification=[],
            created_at=models.utcnow()))

    def goal_names():
        with engine.connect() as conn:
            return set(conn.execute(sa.select(models.Goal.name)).scalars())

    fixtures.db_manage(conf, 'sync')
    installed = set(plugins.load_classes(plugins.GOALS))
    assert goal_names() == installed | {'retired'}
    out = fixtures.db_manage(conf, 'sync', '--prune').stdout
    assert 'removed' in out
    assert goal_names() == installed
