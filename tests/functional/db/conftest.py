import pytest
import sqlalchemy as sa
from oslo_db.sqlalchemy import engines
from tests.functional import services

from watcher_ha.db import engine as db_engine
from watcher_ha.db import migration


@pytest.fixture(params=['sqlite', 'mysql', 'postgresql'])
def empty_engine(request, tmp_path):
    """A SQLAlchemy engine on a new, empty database of each kind."""
    if request.param == 'sqlite':
        url, drop = 'sqlite:///%s/test.sqlite' % tmp_path, lambda: None
    else:
        url, drop = services.create_database(request.param)
    # The same engine set-up the product uses (oslo.db's, then ours).
    engine = engines.create_engine(url)
    db_engine.prepare(engine)
    yield engine
    engine.dispose()
    drop()


@pytest.fixture
def migrated_engine(empty_engine, conf):
    """A database at head, with the plugins synced, made the product's
    engine for the duration of the test."""
    migration.upgrade(bind=empty_engine)
    reset = db_engine.context_manager.patch_engine(empty_engine)
    from watcher_ha.common import context
    from watcher_ha.db import installed_plugins
    installed_plugins.sync(context.admin_context())
    yield empty_engine
    reset()


def table_names(engine):
    return set(sa.inspect(engine).get_table_names())
