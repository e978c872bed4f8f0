"""Emptying the database between tests, from the models' metadata: a new
table is emptied without a list to keep up to date."""

import sqlalchemy as sa

from watcher_ha.db import models

# What installed_plugins.sync() fills from the plugins, once per session.
CATALOG = frozenset(model.__table__ for model in (
    models.Goal, models.Strategy, models.ScoringEngine))
# Every other table of the models: what the tests write.
WRITTEN = frozenset(models.Base.metadata.sorted_tables) - CATALOG


def empty(conn, tables):
    """Delete every row of ``tables``, children before their parents."""
    for table in reversed(models.Base.metadata.sorted_tables):
        if table in tables:
            conn.execute(sa.delete(table))
