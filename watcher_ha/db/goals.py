"""Goals and strategies: read-only catalog rows synced from plugins."""

from watcher_ha.common import exception
from watcher_ha.db import models
from watcher_ha.db import query

Goal = models.Goal
Strategy = models.Strategy

GOAL_VIEW = query.View(
    model=Goal,
    not_found=exception.GoalNotFound, not_found_arg='goal',
    lookup=('id', 'uuid', 'name'),
)

GOAL_REFERENCE = query.Reference(
    'goal_id', Goal, {'goal_uuid': 'uuid', 'goal_name': 'name'})
STRATEGY_REFERENCE = query.Reference(
    'strategy_id', Strategy,
    {'strategy_uuid': 'uuid', 'strategy_name': 'name'}, optional=True)

STRATEGY_VIEW = query.View(
    model=Strategy,
    not_found=exception.StrategyNotFound, not_found_arg='strategy',
    references=(GOAL_REFERENCE,),
    lookup=('id', 'uuid', 'name'),
    filters={'goal': query.refers_to(Strategy.goal_id, Goal)},
)

SCORING_ENGINE_VIEW = query.View(
    model=models.ScoringEngine,
    not_found=exception.ScoringEngineNotFound,
    not_found_arg='scoring_engine',
    lookup=('id', 'uuid', 'name'),
)


def get_goal(context, ident):
    return query.get_row(context, GOAL_VIEW, ident)


def get_strategy(context, ident):
    return query.get_row(context, STRATEGY_VIEW, ident)
