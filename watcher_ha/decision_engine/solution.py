"""What a strategy produces: actions to take and how good they are."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class ProposedAction:
    action_type: str
    input_parameters: dict
    # The resource the action acts on (a server or host), when there is one.
    resource_id: str | None = None


class Solution:
    """Actions in the order the strategy found them, plus the values of
    its goal's efficacy indicators."""

    def __init__(self, strategy, goal):
        self.strategy = strategy
        self.goal = goal
        self.actions = []
        self.indicator_values = {}
        # What an operator must read about the plan (that it cannot
        # reach the goal, and why): its status message once stored.
        self.note = None

    def add_action(self, action_type, input_parameters=None,
                   resource_id=None):
        parameters = dict(input_parameters or {})
        if resource_id is not None:
            parameters.setdefault('resource_id', resource_id)
        self.actions.append(ProposedAction(action_type, parameters,
                                           resource_id))

    def set_indicator(self, name, value):
        # Raises ValueError, which fails the audit at the strategy stage,
        # for a name the goal does not declare or a value off its schema.
        self.goal.check_indicator(name, value)
        self.indicator_values[name] = value

    def efficacy_indicators(self):
        """The goal's indicators that the strategy gave a value to."""
        return [{'name': spec.name, 'description': spec.description,
                 'unit': spec.unit, 'value': self.indicator_values[spec.name]}
                for spec in self.goal.efficacy_specification
                if spec.name in self.indicator_values]

    def global_efficacy(self):
        return self.goal.global_efficacy(self.indicator_values)
