"""The weight planner: orders a solution's actions into a graph.

Action types run in order of decreasing weight. The actions of one type
run ``parallelization`` at a time, in as many lanes: each action follows
the one ``parallelization`` places before it (its ``parents``), so that
a new one starts whenever one of its lane ends, not once a whole batch
has. The first actions of a type follow every lane of the type before.
"""

from watcher_ha.conf import planner as planner_conf
from watcher_ha.decision_engine.planner import base
from watcher_ha.decision_engine.planner.base import PlannedAction  # noqa: F401
from watcher_ha.decision_engine.planner.base import UnplannableAction  # noqa

GROUP = planner_conf.WEIGHT
# The defaults of [watcher_planners.weight], as the planner's users
# (tests, benchmarks) name them.
DEFAULT_WEIGHTS = planner_conf.WEIGHT_WEIGHTS
DEFAULT_PARALLELIZATION = planner_conf.WEIGHT_PARALLELIZATION


class WeightPlanner(base.WeightedPlanner):
    group = GROUP
    default_parallelization = DEFAULT_PARALLELIZATION

    def schedule(self, solution):
        """[PlannedAction] with parents set; raises UnplannableAction."""
        self.check_weighted(solution.actions)
        by_weight = {}
        for action in solution.actions:
            by_weight.setdefault(self.weights[action.action_type],
                                 []).append(action)
        planned, before = [], []
        for weight in sorted(by_weight, reverse=True):
            actions = by_weight[weight]
            # The first of each lane follows the end of every lane of the
            # heavier weight before.
            lanes = base.Lanes(
                self.parallelization.get(actions[0].action_type, 1), before)
            planned += [lanes.add(action) for action in actions]
            before = lanes.ends()
        return planned
