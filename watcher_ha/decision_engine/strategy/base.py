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


class NothingToDo(Exception):
    """The strategy looked and decided to do nothing, for a reason an
    operator must be able to read: the audit ends SUCCEEDED without a
    plan, the message as its status (an EVENT audit may then be
    triggered again, where a FAILED one could not)."""


class Strategy:
    name: str
    display_name: str
    goal: str
    parameters_spec: dict = {'properties': {}}
    # The data models (collector names) it reads; the engine waits for
    # each to be built and hands the strategy a snapshot of it.
    data_models: tuple = ()
    # The planner (namespace watcher_ha.planners) that orders its
    # solution, as Watcher's strategies name theirs; None: the one
    # [watcher_decision_engine] planner names (default 'weight', the
    # default of Watcher's strategies).
    planner: str | None = None
    # Hosts that never receive a server from this strategy's plans: the
    # failover segments' reserved hosts, those claimed by a recovery and
    # those on maintenance. Set by the auditor before execute().
    protected_hosts: frozenset = frozenset()

    def __init__(self, goal_plugin, scoring_engines=None):
        self.goal_plugin = goal_plugin
        self.scoring_engines = scoring_engines or {}

    def fresh_hosts(self, parameters):
        """{model name: hostnames} whose servers the engine reads from
        the source just before the strategy runs: where a model fed by
        notifications may lag, and the plan must not."""
        return {}

    def new_solution(self):
        return solution_mod.Solution(self.name, self.goal_plugin)

    def execute(self, audit, parameters, models=None, metrics=None):
        """Return a Solution for ``audit`` (a dict) with ``parameters``;
        ``models``: {name: ClusterState snapshot} of ``data_models``;
        ``metrics``: the audit's datasources.metrics.AuditMetrics."""
        raise NotImplementedError
