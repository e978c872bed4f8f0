"""The plugins a decision engine runs, with the ids of their rows in the
catalog of goals, strategies and scoring engines (db/installed_plugins.py)."""

import threading

import sqlalchemy as sa

from watcher_ha.common import context as watcher_context
from watcher_ha.common import plugins
from watcher_ha.db import engine
from watcher_ha.db import models


class NotInstalled(LookupError):
    """A plugin the audit needs is not installed on this engine."""


class LoadedPlugins:

    def __init__(self):
        self.goals = plugins.load_classes(plugins.GOALS)
        self.strategies = plugins.load_classes(plugins.STRATEGIES)
        self.actions = plugins.load_classes(plugins.ACTIONS)
        self.scoring_engines = {
            name: cls() for name, cls in plugins.load_classes(
                plugins.SCORING_ENGINES).items()}
        self._rows = None
        self._lock = threading.Lock()

    def _strategy_rows(self):
        """{name: (id, goal name)} from the database, read once."""
        with self._lock:
            if self._rows is None:
                strategy, goal = models.Strategy, models.Goal
                with engine.reader.connection.using(
                        watcher_context.admin_context()) as conn:
                    self._rows = {
                        row.name: (row.id, row.goal) for row in conn.execute(
                            sa.select(strategy.name, strategy.id,
                                      goal.name.label('goal'))
                            .join(goal, strategy.goal_id == goal.id)
                            .order_by(strategy.id))}
            return self._rows

    def strategies_for(self, goal_name):
        """Installed strategies of a goal, first registered first."""
        return [name for name, (_, goal) in self._strategy_rows().items()
                if goal == goal_name and name in self.strategies]

    def strategy(self, name):
        """(a strategy instance, its catalog id)."""
        if name not in self.strategies or name not in self._strategy_rows():
            raise NotInstalled('strategy %s is not installed' % name)
        cls = self.strategies[name]
        return (cls(self.goals[cls.goal], self.scoring_engines),
                self._strategy_rows()[name][0])

    def action(self, action_type):
        """The action plugin class."""
        if action_type not in self.actions:
            raise NotInstalled('action type %s is not installed'
                               % action_type)
        return self.actions[action_type]
