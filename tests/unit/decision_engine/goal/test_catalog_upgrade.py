"""A database synced when watcher_ha had two goals gains the others on the
next sync, and what it had keeps its ids and UUIDs."""

import pytest
import sqlalchemy as sa

from tests import factories
from watcher_ha.common import plugins
from watcher_ha.db import installed_plugins
from watcher_ha.db import models

OLD_GOALS = ('dummy', 'cluster_maintaining')


def _goals(db):
    with db.begin() as conn:
        return {row.name: row for row in conn.execute(sa.select(
            models.Goal.name, models.Goal.id, models.Goal.uuid,
            models.Goal.efficacy_specification))}


@pytest.fixture
def old_catalog(db, admin_context):
    goals = plugins.load_classes(plugins.GOALS)
    strategies = plugins.load_classes(plugins.STRATEGIES)
    with db.begin() as conn:
        for table in ('strategies', 'goals'):
            conn.execute(sa.delete(models.Base.metadata.tables[table]))
    installed_plugins.sync(admin_context,
                 goals={name: goals[name] for name in OLD_GOALS},
                 strategies={name: strategy
                             for name, strategy in strategies.items()
                             if strategy.goal in OLD_GOALS})
    yield
    with db.begin() as conn:
        conn.execute(sa.delete(models.Audit))
    installed_plugins.sync(admin_context, prune=True)


def test_sync_adds_the_new_goals_and_keeps_the_old_rows(
        db, admin_context, old_catalog):
    audit_uuid = factories.audit(db)['uuid']
    before = _goals(db)
    assert set(before) == set(OLD_GOALS)

    installed_plugins.sync(admin_context)

    after = _goals(db)
    assert set(after) == set(plugins.load_classes(plugins.GOALS))
    for name in OLD_GOALS:
        assert (after[name].id, after[name].uuid) == \
            (before[name].id, before[name].uuid)
    consolidation = after['server_consolidation'].efficacy_specification
    assert [spec['name'] for spec in consolidation] == [
        'compute_nodes_count', 'released_compute_nodes_count',
        'instance_migrations_count']
    with db.begin() as conn:
        goal_id = conn.execute(sa.select(models.Audit.goal_id).where(
            models.Audit.uuid == audit_uuid)).scalar_one()
    assert goal_id == before['dummy'].id
