"""dummy_with_resize: Watcher's fixed demonstration plan with a resize,
the one its Tempest tests run.

Two messages, a 5 s pause, two live migrations from compute2 to compute3
and a resize of the second server to the flavor ``x2``; the servers are
the fixed uuids Watcher names, so the plan only runs where they exist.
``para1`` and ``para2`` are accepted, as in Watcher, and change nothing.
"""

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import dummy

FIRST = 'b199db0c-1408-4d52-b5a5-5ca14de0ff36'
SECOND = '8db1b3c1-7938-4c34-8c03-6de14b874f8f'


class DummyWithResize(base.Strategy):
    name = 'dummy_with_resize'
    display_name = 'Dummy strategy with resize'
    goal = 'dummy'
    parameters_spec = {'properties': {'para1': dummy.NUMBER_PARAMETER,
                                      'para2': dummy.STRING_PARAMETER}}

    def execute(self, audit, parameters, models=None, metrics=None):
        solution = self.new_solution()
        solution.add_action('nop', {'message': 'hello World'})
        solution.add_action('nop', {'message': 'Welcome'})
        solution.add_action('sleep', {'duration': 5.0})
        for server in (FIRST, SECOND):
            solution.add_action('migrate', {
                'source_node': 'compute2', 'destination_node': 'compute3',
                'migration_type': 'live'}, resource_id=server)
        solution.add_action('resize', {'flavor': 'x2'}, resource_id=SECOND)
        return solution
