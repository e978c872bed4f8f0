"""Each strategy's solutions go to the planner it names, every planner is
built once at start, and a planner named but not installed stops the
start."""

import pytest

from tests import factories
from watcher_ha.common import plugins
from watcher_ha.conf import CONF
from watcher_ha.decision_engine import auditor
from watcher_ha.decision_engine import loaded_plugins
from watcher_ha.decision_engine.planner import loader
from watcher_ha.decision_engine.planner import weight
from watcher_ha.decision_engine.strategy import base as strategy_base
from watcher_ha.decision_engine.strategy import dummy


class Named(strategy_base.Strategy):
    name = 'named'
    planner = 'node_resource_consolidation'


class Unnamed(strategy_base.Strategy):
    name = 'unnamed'


def test_the_three_planners_are_installed_and_only_those_used_built(conf):
    assert plugins.installed_names(plugins.PLANNERS) == [
        'node_resource_consolidation', 'weight', 'workload_stabilization']
    # No strategy names a planner of its own: the configured one alone.
    assert sorted(loader.load(CONF, {}).planners) == ['weight']


def test_a_strategy_that_names_none_gets_the_configured_one(config):
    planners = loader.load(CONF, {'named': Named, 'unnamed': Unnamed})
    assert isinstance(planners.for_strategy(Unnamed(None)),
                      weight.WeightPlanner)
    assert planners.for_strategy(Named(None)) is planners.planners[
        'node_resource_consolidation']
    config.config(planner='workload_stabilization',
                  group='watcher_decision_engine')
    planners = loader.load(CONF, {'unnamed': Unnamed})
    assert planners.for_strategy(Unnamed(None)) is planners.planners[
        'workload_stabilization']


def test_a_strategy_naming_a_missing_planner_stops_the_start(conf):
    class Lost(strategy_base.Strategy):
        planner = 'gone'

    with pytest.raises(plugins.PluginLoadError) as err:
        loader.load(CONF, {'lost': Lost})
    message = str(err.value)
    assert 'Strategy lost plans with the planner gone' in message
    assert 'node_resource_consolidation, weight, workload_stabilization' \
        in message


def test_a_missing_configured_planner_stops_the_start(config):
    config.config(planner='gone', group='watcher_decision_engine')
    with pytest.raises(loader.UnknownPlanner) as err:
        loader.load(CONF, {})
    assert '[watcher_decision_engine] planner' in str(err.value)


def test_every_installed_strategy_names_an_installed_planner(conf):
    loader.load(CONF, plugins.load_classes(plugins.STRATEGIES))


class Recording:
    """A planner that keeps the solutions it is given."""

    def __init__(self):
        self.solutions = []

    def schedule(self, solution):
        self.solutions.append(solution)
        return weight.WeightPlanner({'nop': 2, 'sleep': 1}, {}).schedule(
            solution)


def test_the_auditor_plans_with_the_strategys_planner(api, db, monkeypatch):
    class Dummy(dummy.DummyStrategy):
        planner = 'recording'

    plugins_ = loaded_plugins.LoadedPlugins()
    monkeypatch.setitem(plugins_.strategies, 'dummy', Dummy)
    recording, default = Recording(), Recording()
    engine = auditor.Auditor('engine-1', plugins_, loader.Planners(
        {'weight': default, 'recording': recording}))
    # An audit of the dummy strategy.
    audit = factories.audit(db, state='PENDING')
    engine.run(audit['uuid'])
    assert api.get('/v1/audits/' + audit['uuid']).json['state'] == \
        'SUCCEEDED'
    assert [s.strategy for s in recording.solutions] == ['dummy']
    assert default.solutions == []

