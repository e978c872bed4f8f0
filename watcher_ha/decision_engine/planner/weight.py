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
from watcher_ha.decision_engine.planner.base import UnplannableAction

GROUP = planner_conf.WEIGHT
# The defaults of [watcher_planners.weight], as the planner's users
# (tests, benchmarks) name them.
DEFAULT_WEIGHTS = planner_conf.WEIGHT_WEIGHTS
DEFAULT_PARALLELIZATION = planner_conf.WEIGHT_PARALLELIZATION


class WeightPlanner:

    def __init__(self, weights, parallelization):
        self.weights = weights
        self.parallelization = parallelization

    @classmethod
    def from_conf(cls, conf):
        group = getattr(conf, GROUP)
        # Widths an operator sets add to the defaults or replace some:
        # setting evacuate alone keeps migrate's. Weights are the whole
        # list (a type left out cannot be planned), as in Watcher.
        return cls(group.weights,
                   dict(DEFAULT_PARALLELIZATION, **group.parallelization))

    def schedule(self, solution):
        """[PlannedAction] with parents set; raises UnplannableAction."""
        by_weight = {}
        for action in solution.actions:
            if action.action_type not in self.weights:
                raise UnplannableAction(
                    'No weight is configured for action type %s ([%s] '
                    'weights)' % (action.action_type, GROUP))
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
