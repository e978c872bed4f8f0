"""The plugins the pipeline is made of: strategies, planner, actions."""

import json
import threading
import time

import pytest

from watcher_ha.applier.actions import base as action_base
from watcher_ha.applier.actions import nop
from watcher_ha.applier.actions import sleep
from watcher_ha.applier import workflow
from watcher_ha.common import plugins
from watcher_ha.conf import CONF
from watcher_ha.decision_engine.goal import dummy as dummy_goal
from watcher_ha.decision_engine.planner import weight
from watcher_ha.decision_engine import solution as solution_mod
from watcher_ha.decision_engine.strategy import dummy


def planner():
    return weight.WeightPlanner(weight.DEFAULT_WEIGHTS,
                                weight.DEFAULT_PARALLELIZATION)


def test_dummy_strategy_messages_then_sleep():
    strategy = dummy.DummyStrategy(dummy_goal.Dummy)
    solution = strategy.execute({}, {'para1': 2.5, 'para2': 'hi'})
    assert [(a.action_type, a.input_parameters) for a in solution.actions] \
        == [('nop', {'message': 'hello World'}), ('nop', {'message': 'hi'}),
            ('sleep', {'duration': 2.5})]
    assert solution.efficacy_indicators() == []
    assert solution.global_efficacy() == []


def test_dummy_with_scorer_reports_real_scores():
    scorers = {name: cls() for name, cls in plugins.load_classes(
        plugins.SCORING_ENGINES).items()}
    strategy = dummy.DummyWithScorer(dummy_goal.Dummy, scorers)
    solution = strategy.execute({}, {'param1': 4.0, 'param2': 'ab'})
    messages = [a.input_parameters['message']
                for a in solution.actions if a.action_type == 'nop']
    assert messages == ['dummy_min_scorer: 2', 'dummy_max_scorer: 4.0',
                        'dummy_avg_scorer: 3.0']


def test_weight_planner_orders_by_weight_in_lanes():
    solution = solution_mod.Solution('s', dummy_goal.Dummy)
    for index in range(3):
        solution.add_action('migrate', {'resource_id': str(index)})
    solution.add_action('resize', {'resource_id': 'r'})
    solution.add_action('sleep', {'duration': 1})
    solution.add_action('nop', {'message': 'first'})
    planned = planner().schedule(solution)
    types = [p.action_type for p in planned]
    assert types == ['nop', 'sleep', 'migrate', 'migrate', 'migrate',
                     'resize']
    nop_, sleep_, m1, m2, m3, resize = planned
    assert nop_.parents == []
    assert sleep_.parents == [nop_.uuid]
    # Two migrations at a time, in two lanes: the third starts as soon
    # as the first of its lane ends, whatever the second does.
    assert m1.parents == m2.parents == [sleep_.uuid]
    assert m3.parents == [m1.uuid]
    # The next type waits for the end of every lane.
    assert resize.parents == [m3.uuid, m2.uuid]


def test_a_type_an_operator_sets_keeps_the_others(config):
    config.config(parallelization={'evacuate': 3}, group=weight.GROUP)
    found = weight.WeightPlanner.from_conf(CONF)
    assert found.parallelization['evacuate'] == 3
    assert found.parallelization['migrate'] == (
        weight.DEFAULT_PARALLELIZATION['migrate'])


def _as_rows(planned):
    return [{'uuid': p.uuid, 'parents': p.parents, 'state': 'PENDING'}
            for p in planned]


def test_a_plan_runs_as_wide_as_its_lanes():
    solution = solution_mod.Solution('s', dummy_goal.Dummy)
    solution.add_action('force_host_down', {'resource_name': 'h'})
    for index in range(25):
        solution.add_action('evacuate', {'resource_id': str(index),
                                         'source_node': 'h'})
    solution.add_action('settle_recovery', {})
    planned = weight.WeightPlanner(weight.DEFAULT_WEIGHTS,
                                   dict(weight.DEFAULT_PARALLELIZATION,
                                        evacuate=12)).schedule(solution)
    assert workflow._width(_as_rows(planned)) == 12
    # Done actions do not count; a chain of thousands is one wide (and
    # no recursion limit is hit).
    chain = weight.WeightPlanner(
        weight.DEFAULT_WEIGHTS, {}).schedule(_many_sleeps(5000))
    assert workflow._width(_as_rows(chain)) == 1


def _many_sleeps(count):
    solution = solution_mod.Solution('s', dummy_goal.Dummy)
    for _ in range(count):
        solution.add_action('sleep', {'duration': 0})
    return solution


def test_planner_refuses_unknown_action_types():
    solution = solution_mod.Solution('s', dummy_goal.Dummy)
    solution.add_action('teleport', {})
    with pytest.raises(weight.UnplannableAction) as err:
        planner().schedule(solution)
    assert 'teleport' in str(err.value)


@pytest.mark.parametrize('action,good,bad', [
    (nop.Nop, {'message': 'x'}, {'message': 3}),
    (sleep.Sleep, {'duration': 0.1}, {'duration': -1}),
    (sleep.Sleep, {'duration': 0.1}, {}),
])
def test_action_parameters_are_validated(action, good, bad):
    action.validate(good)
    with pytest.raises(ValueError):
        action.validate(bad)


def test_sleep_is_cut_short_by_abort():
    action = sleep.Sleep({'duration': 30})
    threading.Timer(0.05, action.abort).start()
    started = time.monotonic()
    with pytest.raises(action_base.ActionError):
        action.execute()
    assert time.monotonic() - started < 5


def test_an_action_started_while_its_applier_stops_is_aborted():
    """stop() aborts the actions it finds running; one that starts just
    after (between the task's check of ``stopping`` and its start) is
    aborted as it starts, so its sleep ends at once."""
    stopping = threading.Event()
    run = workflow.PlanRun({'uuid': 'p'}, 'applier-1', {}, stopping)
    stopping.set()
    run.halt.abort()
    action = sleep.Sleep({'duration': 30})
    with run.halt.running(action):
        assert action.aborted
        with pytest.raises(action_base.ActionError):
            action.execute()


def test_installed_actions_are_the_planners_action_types():
    installed = plugins.load_classes(plugins.ACTIONS)
    assert {'nop', 'sleep'} <= set(installed)
    assert set(installed) <= set(weight.DEFAULT_WEIGHTS)
    assert json.dumps(installed['nop'].schema)
