"""The weight planner: orders a solution's actions into a graph.

Action types run in order of decreasing weight. The actions of one type
run ``parallelization`` at a time, in as many lanes: each action follows
the one ``parallelization`` places before it (its ``parents``), so that
a new one starts whenever one of its lane ends, not once a whole batch
has. The first actions of a type follow every lane of the type before.
"""

import dataclasses

from oslo_config import cfg
from oslo_config import types
from oslo_utils import uuidutils

GROUP = 'watcher_planners.weight'

DEFAULT_WEIGHTS = {
    # A host-failure recovery: the failed host is fenced before any of
    # its servers is evacuated: powered off (when it is) before Nova is
    # told it is down.
    'power_off_host': 95,
    'force_host_down': 90,
    'claim_reserved_hosts': 85,
    'evacuate': 35,
    'settle_recovery': 5,
    # The recovery of a server (alone in its plan), and of a process: its
    # host on maintenance before its compute service is disabled, as
    # Masakari does.
    'restart_server': 45,
    'set_host_maintenance': 55,
    'turn_host_to_acpi_s3_state': 10,
    'resize': 20,
    'stop': 35,
    'migrate': 30,
    'sleep': 40,
    'change_nova_service_state': 50,
    'nop': 60,
}
DEFAULT_PARALLELIZATION = {
    'power_off_host': 1,
    'force_host_down': 1,
    'claim_reserved_hosts': 1,
    # A failed host's servers come back 20 at a time (Masakari: 3):
    # rebuilds spread over the reserved hosts claimed, or the cloud.
    'evacuate': 20,
    'settle_recovery': 1,
    'restart_server': 10,
    'set_host_maintenance': 1,
    'turn_host_to_acpi_s3_state': 2,
    'resize': 2,
    'stop': 2,
    'migrate': 2,
    'sleep': 1,
    'change_nova_service_state': 1,
    'nop': 1,
}

OPTS = [
    cfg.Opt('weights', type=types.Dict(value_type=types.Integer()),
            default=DEFAULT_WEIGHTS,
            help='Weight of each action type: heavier types are scheduled '
                 'first. An action type missing here cannot be planned.'),
    cfg.Opt('parallelization', type=types.Dict(value_type=types.Integer()),
            default=DEFAULT_PARALLELIZATION,
            help='How many actions of each type may run at the same time '
                 '(the types given here change or add to the defaults; '
                 'others run one at a time). The applier runs a plan with '
                 'as many threads as its widest step needs, [watcher_'
                 'applier] workers at least.'),
]


@dataclasses.dataclass
class PlannedAction:
    uuid: str
    action_type: str
    input_parameters: dict
    parents: list


class UnplannableAction(ValueError):
    pass


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
            width = max(1, self.parallelization.get(actions[0].action_type,
                                                    1))
            # Lanes: action i follows action i - width, not a whole chunk
            # of them, so that a slow one holds back its lane only. The
            # first of each lane follows the end of every lane of the
            # heavier weight before.
            lanes = [None] * min(width, len(actions))
            for index, action in enumerate(actions):
                lane = index % len(lanes)
                parents = ([lanes[lane].uuid] if lanes[lane]
                           else [p.uuid for p in before])
                lanes[lane] = PlannedAction(uuidutils.generate_uuid(),
                                            action.action_type,
                                            dict(action.input_parameters),
                                            parents)
                planned.append(lanes[lane])
            before = lanes
        return planned


def register_opts(conf):
    conf.register_opts(OPTS, group=GROUP)


def list_opts():
    return OPTS
