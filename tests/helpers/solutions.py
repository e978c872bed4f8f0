"""Hand-made solutions for the planner tests."""

from watcher_ha.decision_engine.goal import dummy as dummy_goal
from watcher_ha.decision_engine import solution as solution_mod


def solution(*actions):
    """A Solution of ``actions``: (action_type, input_parameters)."""
    found = solution_mod.Solution('s', dummy_goal.Dummy)
    for action_type, parameters in actions:
        found.add_action(action_type, parameters)
    return found


def migrate(server, source, destination=None):
    return ('migrate', {'resource_id': server, 'migration_type': 'live',
                        'source_node': source,
                        'destination_node': destination})


def service(host, state):
    return ('change_nova_service_state',
            {'resource_id': host, 'resource_name': host, 'state': state})

