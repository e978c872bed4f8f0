"""What a strategy plugin (namespace ``watcher_ha.strategies``) declares.

``parameters_spec`` is a JSON Schema object; audit parameters are checked
against it (and completed with its defaults) when the audit is created.
``execute`` turns an audit into a ``Solution``; it must not write anything
itself: the decision engine stores the plan, once, after checking it still
owns the audit.
"""

from watcher_ha.decision_engine import solution as solution_mod


class StrategyError(Exception):
    """The strategy cannot produce a plan; the message says why."""


class Strategy:
    name: str
    display_name: str
    goal: str
    parameters_spec: dict = {'properties': {}}

    def __init__(self, goal_plugin, scoring_engines=None):
        self.goal_plugin = goal_plugin
        self.scoring_engines = scoring_engines or {}

    def new_solution(self):
        return solution_mod.Solution(self.name, self.goal_plugin)

    def execute(self, audit, parameters):
        """Return a Solution for ``audit`` (a dict) with ``parameters``."""
        raise NotImplementedError
