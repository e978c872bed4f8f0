"""actuator: the operator's actions, checked against the installed
action plugins."""

import pytest

from watcher_ha.common import parameters as parameters_mod
from watcher_ha.common import plugins
from watcher_ha.decision_engine.strategy import actuator
from watcher_ha.decision_engine.strategy import base

SERVER = '56a40802-6fde-4b59-957c-c84baec7eaed'


def run(actions):
    goal = plugins.load_classes(plugins.GOALS)['unclassified']
    strategy = actuator.Actuator(goal)
    checked = parameters_mod.check(actuator.Actuator.parameters_spec,
                                   {'actions': actions})
    return strategy.execute({}, checked)


def test_the_plan_is_exactly_the_actions_given():
    solution = run([
        {'action_type': 'migrate', 'resource_id': SERVER,
         'input_parameters': {'migration_type': 'live',
                              'source_node': 's01'}},
        {'action_type': 'nop', 'input_parameters': {'message': 'hi'}},
        {'action_type': 'stop', 'resource_id': SERVER,
         'input_parameters': {}}])
    assert [(a.action_type, a.input_parameters, a.resource_id)
            for a in solution.actions] == [
        ('migrate', {'migration_type': 'live', 'source_node': 's01',
                     'resource_id': SERVER}, SERVER),
        ('nop', {'message': 'hi'}, None),
        ('stop', {'resource_id': SERVER}, SERVER)]
    assert solution.efficacy_indicators() == []


def test_no_actions_is_an_empty_plan():
    assert run([]).actions == []


def test_every_bad_action_is_named_by_its_position():
    with pytest.raises(base.StrategyError) as caught:
        run([{'action_type': 'nop', 'input_parameters': {'message': 'ok'}},
             {'action_type': 'teleport', 'input_parameters': {}},
             {'action_type': 'migrate', 'resource_id': SERVER,
              'input_parameters': {'source_node': 's01'}},
             {'action_type': 'nop', 'input_parameters': {'message': 'x'},
              'weight': 3}])
    message = str(caught.value)
    assert "actions[1]: action type 'teleport' is not installed" in message
    assert 'actions[2]: invalid input_parameters for migrate' in message
    assert "'migration_type' is a required property" in message
    assert 'actions[3] has keys an action does not take: weight' in message
    assert 'actions[0]' not in message
    # It says what is installed.
    assert 'change_nova_service_state' in message


def test_the_schema_is_watchers():
    spec = actuator.Actuator.parameters_spec
    assert spec['required'] == ['actions']
    assert spec['properties']['actions']['items']['required'] == [
        'action_type', 'input_parameters']
    with pytest.raises(Exception, match='required property'):
        run([{'action_type': 'nop'}])


def test_the_api_takes_watchers_example_and_refuses_a_bad_shape(api):
    made = api.post('/v1/audits', body={
        'goal': 'unclassified', 'strategy': 'actuator',
        'audit_type': 'ONESHOT', 'parameters': {'actions': [
            {'action_type': 'migrate', 'resource_id': SERVER,
             'input_parameters': {'migration_type': 'live',
                                  'source_node': 's01'}}]}})
    assert made.status == 201, made
    refused = api.post('/v1/audits', body={
        'goal': 'unclassified', 'strategy': 'actuator',
        'audit_type': 'ONESHOT',
        'parameters': {'actions': [{'action_type': 'nop'}]}})
    assert refused.status == 400, refused
    assert "'input_parameters' is a required property" in refused.fault
