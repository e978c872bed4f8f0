"""The dummy strategies: they exercise the pipeline without a cloud."""

from watcher_ha.decision_engine.strategy import base


class DummyStrategy(base.Strategy):
    name = 'dummy'
    display_name = 'Dummy strategy'
    goal = 'dummy'
    parameters_spec = {
        'properties': {
            'para1': {'description': 'number parameter example',
                      'type': 'number', 'default': 3.2,
                      'minimum': 1.0, 'maximum': 10.2},
            'para2': {'description': 'string parameter example',
                      'type': 'string', 'default': 'hello'},
        },
    }


class DummyWithScorer(base.Strategy):
    name = 'dummy_with_scorer'
    display_name = 'Dummy Strategy using sample Scoring Engines'
    goal = 'dummy'
    parameters_spec = {
        'properties': {
            'param1': {'description': 'number parameter example',
                       'type': 'number', 'default': 3.2,
                       'minimum': 1.0, 'maximum': 10.2},
            'param2': {'description': 'string parameter example',
                       'type': 'string', 'default': 'hello'},
        },
    }


class DummyWithResize(base.Strategy):
    name = 'dummy_with_resize'
    display_name = 'Dummy strategy with resize'
    goal = 'dummy'
    parameters_spec = {
        'properties': {
            'para1': {'description': 'number parameter example',
                      'type': 'number', 'default': 3.2,
                      'minimum': 1.0, 'maximum': 10.2},
            'para2': {'description': 'string parameter example',
                      'type': 'string', 'default': 'hello'},
        },
    }
