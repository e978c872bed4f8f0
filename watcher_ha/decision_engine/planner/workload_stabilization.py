"""The workload_stabilization planner, Watcher's planner of the
workload_balancing strategies (workload_stabilization, workload_balance).

It takes the action types heaviest first, as the weight planner does,
but a type does not wait for the whole type before it: an action waits
only for the earlier (heavier) actions that concern it, as Watcher's:

- a resize, for the migrations of its server;
- a host's ``turn_host_to_acpi_s3_state``, for the migrations off that
  host and the resizes of servers on it (and, since the plan cannot tell
  where a server it does not migrate is, for those servers' resizes).

Migrations, sleeps, nops and service changes wait for nothing else.
Where Watcher's applier bounds how many run at once with its thread
pool, ours runs as wide as the plan, so each type runs in
``parallelization`` lanes as in the weight planner.
"""

import collections

from watcher_ha.conf import planner as planner_conf
from watcher_ha.decision_engine.planner import base

GROUP = planner_conf.WORKLOAD_STABILIZATION
POWER_OFF = 'turn_host_to_acpi_s3_state'


class WorkloadStabilizationPlanner(base.WeightedPlanner):
    group = GROUP
    default_parallelization = (
        planner_conf.WORKLOAD_STABILIZATION_PARALLELIZATION)

    def schedule(self, solution):
        """[PlannedAction] with parents set; raises UnplannableAction."""
        self.check_weighted(solution.actions)
        # Heaviest first; a stable sort keeps the strategy's order within
        # a type.
        ordered = sorted(solution.actions,
                         key=lambda a: -self.weights[a.action_type])
        lanes = {}
        done = _Done()
        planned = []
        for action in ordered:
            kind = action.action_type
            if kind not in lanes:
                lanes[kind] = base.Lanes(self.parallelization.get(kind, 1))
            step = lanes[kind].add(action, done.awaited_by(action))
            done.record(action, step)
            planned.append(step)
        return planned


class _Done:
    """The actions planned so far that a later one may have to wait
    for: migrations by server and by source host, resizes by host."""

    def __init__(self):
        self.migrations_of = collections.defaultdict(list)
        self.migrations_from = collections.defaultdict(list)
        # Where each server migrated in this plan was (its resize runs
        # there, before or after the migration, per the weights).
        self.host_of = {}
        # {host or None (a server the plan does not migrate): [(resize,
        # the migrations it waits for)]}
        self.resizes_on = collections.defaultdict(list)

    def awaited_by(self, action):
        parameters = action.input_parameters
        if action.action_type == 'resize':
            return self.migrations_of[parameters.get('resource_id')]
        if action.action_type == POWER_OFF:
            host = parameters.get('resource_id')
            resizes = self.resizes_on[host] + self.resizes_on[None]
            # A migration a resize already waits for needs no edge of its
            # own.
            covered = {uuid for _, after in resizes for uuid in after}
            return [uuid for uuid, _ in resizes] + [
                uuid for uuid in self.migrations_from[host]
                if uuid not in covered]
        return []

    def record(self, action, step):
        parameters = action.input_parameters
        server = parameters.get('resource_id')
        if action.action_type == 'migrate':
            self.migrations_of[server].append(step.uuid)
            self.migrations_from[parameters.get('source_node')].append(
                step.uuid)
            self.host_of.setdefault(server, parameters.get('source_node'))
        elif action.action_type == 'resize':
            self.resizes_on[self.host_of.get(server)].append(
                (step.uuid, step.parents))
