"""The alembic migrations build exactly the schema the models declare, on
every supported database, and can be undone."""

import pprint

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
