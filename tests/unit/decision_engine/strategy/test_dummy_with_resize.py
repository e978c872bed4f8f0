"""dummy_with_resize: Watcher's fixed demonstration plan, valid for our
action plugins."""

from watcher_ha.common import plugins
from watcher_ha.decision_engine.strategy import dummy_with_resize


def test_watchers_plan_and_each_action_is_valid():
    goal = plugins.load_classes(plugins.GOALS)['dummy']
    solution = dummy_with_resize.DummyWithResize(goal).execute(
        {}, {'para1': 3.2, 'para2': 'hello'})
    assert [(a.action_type, a.resource_id) for a in solution.actions] == [
        ('nop', None), ('nop', None), ('sleep', None),
        ('migrate', dummy_with_resize.FIRST),
        ('migrate', dummy_with_resize.SECOND),
        ('resize', dummy_with_resize.SECOND)]
    assert solution.actions[-1].input_parameters == {
        'flavor': 'x2', 'resource_id': dummy_with_resize.SECOND}
    installed = plugins.load_classes(plugins.ACTIONS)
    for action in solution.actions:
        installed[action.action_type].validate(action.input_parameters)


def test_parameters_are_the_dummy_ones():
    spec = dummy_with_resize.DummyWithResize.parameters_spec['properties']
    assert spec['para1']['default'] == 3.2
    assert spec['para2']['default'] == 'hello'
