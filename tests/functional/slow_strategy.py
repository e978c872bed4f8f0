"""A strategy that takes its time, for the daemons of the tests that need
an audit still running when its engine is killed or paused.

It is installed for the processes a test starts only: ``install`` writes
the entry point into a dist-info folder (what pip writes) that the
processes find on their PYTHONPATH. The product ships no such strategy.
"""

import os
import time

from watcher_ha.decision_engine.strategy import base

NAME = 'slow_dummy'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class SlowDummy(base.Strategy):
    """One nop action, after thinking ``seconds`` seconds."""
    name = NAME
    display_name = 'Dummy strategy that thinks for a while (tests)'
    goal = 'dummy'
    parameters_spec = {'properties': {'seconds': {
        'description': 'how long the strategy thinks', 'type': 'number',
        'default': 1.0, 'minimum': 0, 'maximum': 600}}}

    def execute(self, audit, parameters, models=None, metrics=None):
        time.sleep(parameters['seconds'])
        solution = self.new_solution()
        solution.add_action('nop', {'message': 'thought for %s s'
                                    % parameters['seconds']})
        return solution


def install(directory):
    """Register SlowDummy for processes that get the returned PYTHONPATH
    (``directory`` plus this checkout, and what was there before)."""
    dist = directory / 'watcher_ha_test_strategies-0.dist-info'
    dist.mkdir(parents=True, exist_ok=True)
    (dist / 'METADATA').write_text(
        'Metadata-Version: 2.1\nName: watcher-ha-test-strategies\n'
        'Version: 0\n')
    (dist / 'entry_points.txt').write_text(
        '[watcher_ha.strategies]\n%s = %s:SlowDummy\n' % (NAME, __name__))
    return os.pathsep.join(
        [str(directory), ROOT]
        + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep)
           if p])
