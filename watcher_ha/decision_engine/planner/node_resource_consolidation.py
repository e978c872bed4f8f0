"""The node_resource_consolidation planner, Watcher's planner of the
node_resource_consolidation strategy. It keeps the strategy's order and
knows its three steps:

1. ``change_nova_service_state`` to disabled: the hosts to empty (and
   the empty ones) leave Nova's scheduler first;
2. then the migrations, host by host: one host's servers leave one after
   another, in the strategy's order;
3. then ``change_nova_service_state`` to enabled, once every migration
   is over.

Watcher drains every host at once (its applier's thread pool bounds
it); ours runs a plan as wide as its graph, so the hosts are drained
``parallelization['migrate']`` at a time, each host's migrations in one
lane, and the service changes run ``parallelization[
'change_nova_service_state']`` at a time. Any other action type is
refused, as Watcher does.
"""

import heapq

from watcher_ha.conf import planner as planner_conf
from watcher_ha.decision_engine.planner import base

GROUP = planner_conf.NODE_RESOURCE_CONSOLIDATION
SERVICE_STATE = 'change_nova_service_state'


class NodeResourceConsolidationPlanner:

    def __init__(self, parallelization):
        self.parallelization = parallelization

    @classmethod
    def from_conf(cls, conf):
        return cls(dict(
            planner_conf.NODE_RESOURCE_CONSOLIDATION_PARALLELIZATION,
            **getattr(conf, GROUP).parallelization))

    def schedule(self, solution):
        """[PlannedAction] with parents set; raises UnplannableAction."""
        disable, enable, draining = [], [], {}
        for action in solution.actions:
            parameters = action.input_parameters
            if action.action_type == SERVICE_STATE:
                (disable if parameters.get('state') == 'disabled'
                 else enable).append(action)
            elif action.action_type == 'migrate':
                draining.setdefault(parameters.get('source_node'),
                                    []).append(action)
            else:
                raise base.UnplannableAction(
                    'The node_resource_consolidation planner plans '
                    'change_nova_service_state and migrate actions only, '
                    'not %s' % action.action_type)
        width = self.parallelization.get(SERVICE_STATE, 1)
        disabling = base.Lanes(width)
        planned = [disabling.add(action) for action in disable]
        migrations, ends = self._drain(draining, disabling.ends())
        planned += migrations
        enabling = base.Lanes(width, ends)
        planned += [enabling.add(action) for action in enable]
        return planned

    def _drain(self, draining, start):
        """The migrations of ``draining`` ({host: [migrate]}), each
        host's in a chain, the chains spread over the lanes: each host
        goes to the lane with the fewest migrations so far. Returns the
        planned migrations and the ends of the lanes."""
        width = max(1, self.parallelization.get('migrate', 1))
        tails = [None] * min(width, len(draining))
        # (migrations in the lane, lane): ties go to the first lane.
        load = [(0, lane) for lane in range(len(tails))]
        planned = []
        for actions in draining.values():
            count, lane = heapq.heappop(load)
            for action in actions:
                parents = [tails[lane].uuid] if tails[lane] else start
                tails[lane] = base.planned(action, parents)
                planned.append(tails[lane])
            heapq.heappush(load, (count + len(actions), lane))
        return planned, [tail.uuid for tail in tails] or list(start)
