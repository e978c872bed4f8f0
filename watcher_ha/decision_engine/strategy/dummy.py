"""The dummy strategies: they exercise the pipeline without a cloud."""

import json

from watcher_ha.decision_engine.strategy import base

NUMBER_PARAMETER = {'description': 'number parameter example',
                    'type': 'number', 'default': 3.2,
                    'minimum': 1.0, 'maximum': 10.2}
STRING_PARAMETER = {'description': 'string parameter example',
                    'type': 'string', 'default': 'hello'}


class DummyStrategy(base.Strategy):
    """Two messages, then a pause of ``para1`` seconds."""
    name = 'dummy'
    display_name = 'Dummy strategy'
    goal = 'dummy'
    parameters_spec = {'properties': {'para1': NUMBER_PARAMETER,
                                      'para2': STRING_PARAMETER}}

    def execute(self, audit, parameters, models=None, metrics=None):
        solution = self.new_solution()
        solution.add_action('nop', {'message': 'hello World'})
        solution.add_action('nop', {'message': parameters['para2']})
        solution.add_action('sleep', {'duration': parameters['para1']})
        return solution


class DummyWithScorer(base.Strategy):
    """Asks the sample scoring engines about ``param1`` and reports what
    they answered, then pauses ``param1`` seconds."""
    name = 'dummy_with_scorer'
    display_name = 'Dummy Strategy using sample Scoring Engines'
    goal = 'dummy'
    parameters_spec = {'properties': {'param1': NUMBER_PARAMETER,
                                      'param2': STRING_PARAMETER}}
    SCORERS = ('dummy_min_scorer', 'dummy_max_scorer', 'dummy_avg_scorer')

    def execute(self, audit, parameters, models=None, metrics=None):
        solution = self.new_solution()
        features = json.dumps([parameters['param1'], len(
            parameters['param2'])])
        for name in self.SCORERS:
            scorer = self.scoring_engines.get(name)
            if scorer is None:
                raise base.StrategyError('scoring engine %s is not '
                                         'installed' % name)
            solution.add_action('nop', {'message': '%s: %s' % (
                name, scorer.calculate_score(features))})
        solution.add_action('sleep', {'duration': parameters['param1']})
        return solution

