"""What every planner (namespace ``watcher_ha.planners``) produces, and
the lanes they spread actions over.

A planner turns a Solution into PlannedActions: the same actions, each
with a new uuid and the uuids of the actions it waits for (``parents``).
The applier starts an action once all its parents succeeded, and runs a
plan with as many threads as its widest step needs, so a planner's
parents are also what bounds how much of the plan runs at once.
"""

import dataclasses

from oslo_utils import uuidutils


@dataclasses.dataclass
class PlannedAction:
    uuid: str
    action_type: str
    input_parameters: dict
    parents: list


class UnplannableAction(ValueError):
    """The solution holds an action the planner cannot order."""


class WeightedPlanner:
    """A planner that takes the action types heaviest first, by its
    group's ``weights``, each type in as many lanes as its
    ``parallelization`` says. Subclasses name their option ``group`` and
    the ``default_parallelization`` it starts from."""

    group = None
    default_parallelization = {}

    def __init__(self, weights, parallelization):
        self.weights = weights
        self.parallelization = parallelization

    @classmethod
    def from_conf(cls, conf):
        group = getattr(conf, cls.group)
        # Widths an operator sets add to the defaults or replace some:
        # setting evacuate alone keeps migrate's. Weights are the whole
        # list (a type left out cannot be planned), as in Watcher.
        return cls(group.weights,
                   dict(cls.default_parallelization, **group.parallelization))

    def check_weighted(self, actions):
        """Raise UnplannableAction for the first of ``actions`` whose type
        has no weight."""
        for action in actions:
            if action.action_type not in self.weights:
                raise UnplannableAction(
                    'No weight is configured for action type %s ([%s] '
                    'weights)' % (action.action_type, self.group))


def planned(action, parents):
    """A PlannedAction of ``action`` (a solution's ProposedAction)."""
    return PlannedAction(uuidutils.generate_uuid(), action.action_type,
                         dict(action.input_parameters), list(parents))


class Lanes:
    """``width`` lanes of actions: the n-th action added follows the one
    added ``width`` before it (the last of its lane), so that a slow
    action holds back its own lane only; the first of each lane follows
    ``start`` (uuids)."""

    def __init__(self, width, start=()):
        self.width = max(1, width)
        self.start = list(start)
        self.tails = []
        self._added = 0

    def add(self, action, after=()):
        """Plan ``action`` in the next lane, after ``after`` (uuids) too."""
        lane = self._added % self.width
        self._added += 1
        if lane == len(self.tails):
            parents = list(self.start)
            self.tails.append(None)
        else:
            parents = [self.tails[lane].uuid]
        parents += [uuid for uuid in after if uuid not in parents]
        self.tails[lane] = planned(action, parents)
        return self.tails[lane]

    def ends(self):
        """The uuids of each lane's last action, or ``start`` if no
        action was added: what comes after the lanes waits for these."""
        return [tail.uuid for tail in self.tails] or list(self.start)
