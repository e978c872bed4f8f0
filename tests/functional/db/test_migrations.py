"""The alembic migrations build exactly the schema the models declare, on
every supported database, and can be undone."""

import pprint

import sqlalchemy as sa

from alembic import autogenerate
from alembic import migration as alembic_migration

from tests.functional.db.conftest import table_names
from watcher_ha.db import migration
from watcher_ha.db import models


def schema_differences(engine):
    with engine.connect() as conn:
        context = alembic_migration.MigrationContext.configure(
            conn, opts={'compare_type': True,
                        'compare_server_default': False})
        return autogenerate.compare_metadata(context, models.Base.metadata)


def test_migrations_match_models(empty_engine):
    migration.upgrade(bind=empty_engine)
    assert migration.version(bind=empty_engine) == migration.head()
    diff = schema_differences(empty_engine)
    assert diff == [], pprint.pformat(diff)


def test_downgrade_to_base_and_up_again(empty_engine):
    migration.upgrade(bind=empty_engine)
    migration.downgrade('base', bind=empty_engine)
    assert table_names(empty_engine) <= {'alembic_version'}
    assert migration.version(bind=empty_engine) is None
    migration.upgrade(bind=empty_engine)
    assert set(models.Base.metadata.tables) <= table_names(empty_engine)


def _counts(engine):
    with engine.connect() as conn:
        return {table: conn.execute(sa.select(sa.func.count()).select_from(
            sa.table(table))).scalar()
            for table in ('audits', 'action_plans', 'actions',
                          'efficacy_indicators', 'action_plan_claims')}


def test_the_pipelines_revision_keeps_every_plan(empty_engine):
    """0012 makes action_plans.audit_id nullable: SQLite copies the
    table, which must take no row that refers to it along (the
    indicators and holds cascade, the actions refuse)."""
    migration.upgrade('0011', bind=empty_engine)
    now = models.utcnow()
    rows = [
        ('goals', dict(id=1, uuid='g', name='g', display_name='g',
                       efficacy_specification='[]', created_at=now)),
        ('audits', dict(id=1, uuid='a', name='a', audit_type='ONESHOT',
                        state='SUCCEEDED', parameters='{}', goal_id=1,
                        scope='[]', auto_trigger=False, force=False,
                        created_at=now, version=1)),
        ('action_plans', dict(id=1, uuid='p', audit_id=1, state='PENDING',
                              global_efficacy='[]', created_at=now,
                              version=1)),
        ('actions', dict(id=1, uuid='x', action_plan_id=1,
                         action_type='nop', input_parameters='{}',
                         state='PENDING', parents='[]', created_at=now,
                         version=1)),
        ('efficacy_indicators', dict(id=1, uuid='i', action_plan_id=1,
                                     name='n', created_at=now)),
        ('action_plan_claims', dict(id=1, resource_type='server',
                                    resource_id='s', action_plan_id=1,
                                    created_at=now)),
    ]
    with empty_engine.begin() as conn:
        for table, values in rows:
            conn.execute(sa.table(table, *map(sa.column, values)).insert()
                         .values(**values))
    before = _counts(empty_engine)
    migration.upgrade(bind=empty_engine)
    assert _counts(empty_engine) == before
    migration.downgrade('0011', bind=empty_engine)
    assert _counts(empty_engine) == before
