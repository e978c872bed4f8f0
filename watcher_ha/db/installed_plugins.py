"""Goals, strategies and scoring engines: synced from installed plugins.

Every daemon syncs at start, possibly at the same moment as its peers, so
each row is inserted or else updated in place; neither loses.
"""

import json

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import uuidutils

from watcher_ha.common import plugins
from watcher_ha.db import engine
from watcher_ha.db import models

LOG = log.getLogger(__name__)


def _upsert(session, model, name, values):
    updated = session.execute(
        sa.update(model).where(model.name == name).values(**values)
    ).rowcount
    if updated:
        return
    try:
        with session.begin_nested():
            session.execute(sa.insert(model).values(
                uuid=uuidutils.generate_uuid(), name=name, **values))
    except db_exc.DBDuplicateEntry:
        # A peer inserted it between our UPDATE and INSERT: update theirs.
        session.execute(
            sa.update(model).where(model.name == name).values(**values))
    except db_exc.DBError as err:
        # InnoDB rolls a deadlock victim's whole transaction back, its
        # savepoint with it: the ROLLBACK TO SAVEPOINT that follows fails
        # ("SAVEPOINT ... does not exist") and hides the deadlock. Raise
        # the deadlock, for sync's retry to run the transaction again.
        if isinstance(err.__context__, db_exc.DBDeadlock):
            raise err.__context__ from None
        raise


def _remove_stale(session, model, names, referencing):
    """Delete rows no plugin provides any more, unless something uses them."""
    stale = session.execute(
        sa.select(model.id, model.name).where(model.name.not_in(names))
    ).all()
    for row in stale:
        used = any(session.execute(sa.select(column).where(
            column == row.id).limit(1)).first() for column in referencing)
        if used:
            LOG.warning('%s %s is no longer provided by any plugin but is '
                        'still referenced; keeping it.', model.__name__,
                        row.name)
            continue
        session.execute(sa.delete(model).where(model.id == row.id))


def _indicators(goal):
    return [{'name': spec.name, 'description': spec.description,
             'unit': spec.unit, 'schema': json.dumps(spec.schema)}
            for spec in goal.efficacy_specification]


@engine.retry_on_deadlock
def sync(context, goals=None, strategies=None, scoring_engines=None,
         prune=False):
    """Add and update what the installed plugins provide.

    With ``prune``, also delete what no plugin provides any more (and
    nothing uses). Daemons sync without pruning at start: during a rolling
    upgrade a host with older plugins must not delete its peers' newer
    ones; operators prune with ``watcher-ha-db-manage sync --prune``.
    """
    goals = plugins.load_classes(plugins.GOALS) if goals is None else goals
    if strategies is None:
        strategies = plugins.load_classes(plugins.STRATEGIES)
    if scoring_engines is None:
        scoring_engines = plugins.load_classes(plugins.SCORING_ENGINES)
    with engine.writer.using(context) as session:
        for name, goal in goals.items():
            _upsert(session, models.Goal, name, {
                'display_name': goal.display_name,
                'efficacy_specification': _indicators(goal)})
        goal_ids = dict(session.execute(
            sa.select(models.Goal.name, models.Goal.id)).all())
        for name, strategy in strategies.items():
            if strategy.goal not in goal_ids:
                LOG.error('Strategy %s is for goal %s, which no plugin '
                          'provides; skipping it.', name, strategy.goal)
                continue
            _upsert(session, models.Strategy, name, {
                'display_name': strategy.display_name,
                'goal_id': goal_ids[strategy.goal],
                'parameters_spec': strategy.parameters_spec})
        for name, scorer in scoring_engines.items():
            _upsert(session, models.ScoringEngine, name, {
                'description': scorer.description,
                'metainfo': scorer.metainfo})
        if not prune:
            return
        _remove_stale(session, models.Strategy, list(strategies), [
            models.AuditTemplate.strategy_id, models.Audit.strategy_id,
            models.ActionPlan.strategy_id])
        _remove_stale(session, models.Goal, list(goals), [
            models.AuditTemplate.goal_id, models.Audit.goal_id,
            models.Strategy.goal_id])
        _remove_stale(session, models.ScoringEngine, list(scoring_engines),
                      [])
