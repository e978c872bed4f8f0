"""actuator: the plan is the actions the operator gives.

Watcher's strategy of that name copies its ``actions`` parameter (a list
of ``{action_type, resource_id, input_parameters}``) into the solution,
to test actions or to run an explicit task from an event. Watcher finds
an unknown action type or bad input only when the plan is built or run;
here each action is checked against the action plugins installed on
this engine before anything is planned, and the audit fails with one
message naming every bad action by its position in the list.
"""

from watcher_ha.common import plugins
from watcher_ha.decision_engine.strategy import base

# The keys an action of the list may have: Watcher passes each one to
# its solution's add_action, which takes these and no other.
KEYS = ('action_type', 'resource_id', 'input_parameters')


class Actuator(base.Strategy):
    name = 'actuator'
    display_name = 'Actuator'
    goal = 'unclassified'
    data_models = ()
    parameters_spec = {
        '$schema': 'http://json-schema.org/draft-04/schema#',
        'type': 'object',
        'properties': {
            'actions': {
                'type': 'array',
                'items': {
                    'type': 'object',
                    'properties': {
                        'action_type': {'type': 'string'},
                        'resource_id': {'type': 'string'},
                        'input_parameters': {
                            'type': 'object',
                            'properties': {},
                            'additionalProperties': True,
                        },
                    },
                    'required': ['action_type', 'input_parameters'],
                    'additionalProperties': True,
                },
            },
        },
        'required': ['actions'],
    }

    def __init__(self, goal_plugin, scoring_engines=None,
                 action_types=None):
        super().__init__(goal_plugin, scoring_engines)
        # {action type: plugin class}; the installed ones unless given.
        self._action_types = action_types

    def action_types(self):
        if self._action_types is None:
            self._action_types = plugins.load_classes(plugins.ACTIONS)
        return self._action_types

    def execute(self, audit, parameters, models=None, metrics=None):
        given = parameters.get('actions') or []
        problems = [problem for position, action in enumerate(given)
                    for problem in self._problems(position, action)]
        if problems:
            raise base.StrategyError(
                'actuator: %s. Each action is {"action_type": one of %s, '
                '"resource_id": optional, "input_parameters": what that '
                'action type takes}' % (
                    '; '.join(problems),
                    ', '.join(sorted(self.action_types()))))
        solution = self.new_solution()
        for action in given:
            solution.add_action(action['action_type'],
                                action['input_parameters'],
                                resource_id=action.get('resource_id'))
        return solution

    def _problems(self, position, action):
        """What is wrong with the action at ``position``, as sentences."""
        where = 'actions[%d]' % position
        unknown = sorted(set(action) - set(KEYS))
        if unknown:
            yield '%s has keys an action does not take: %s' % (
                where, ', '.join(unknown))
        cls = self.action_types().get(action['action_type'])
        if cls is None:
            yield '%s: action type %r is not installed' % (
                where, action['action_type'])
            return
        # As the solution will give it: with its resource_id.
        parameters = dict(action['input_parameters'])
        if action.get('resource_id') is not None:
            parameters.setdefault('resource_id', action['resource_id'])
        try:
            cls.validate(parameters)
        except ValueError as err:
            yield '%s: %s' % (where, err)
