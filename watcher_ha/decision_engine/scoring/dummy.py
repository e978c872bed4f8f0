"""Sample scoring engines, used by the dummy_with_scorer strategy."""

import json
import statistics

from watcher_ha.decision_engine.scoring import base


def _numbers(features):
    values = json.loads(features)
    if not isinstance(values, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool)
            for v in values):
        raise ValueError('expected a JSON list of numbers, got %r'
                         % (features,))
    return values


class MinScorer(base.ScoringEngine):
    name = 'dummy_min_scorer'
    description = 'Dummy Scorer calculating the minimum value'

    def calculate_score(self, features):
        return json.dumps(min(_numbers(features)))


class MaxScorer(base.ScoringEngine):
    name = 'dummy_max_scorer'
    description = 'Dummy Scorer calculating the maximum value'

    def calculate_score(self, features):
        return json.dumps(max(_numbers(features)))


class AvgScorer(base.ScoringEngine):
    name = 'dummy_avg_scorer'
    description = 'Dummy Scorer calculating the average value'

    def calculate_score(self, features):
        return json.dumps(statistics.fmean(_numbers(features)))


class DummyScorer(base.ScoringEngine):
    """Classifies a workload from its CPU and memory figures.

    Input: a JSON list [cpu_util %, memory_util %]; output: a JSON list
    with one class index: 0 idle, 1 CPU-bound, 2 memory-bound, 3 busy.
    """
    name = 'dummy_scorer'
    description = 'Dummy workload classifier'
    metainfo = json.dumps({
        'feature_columns': ['cpu_util', 'memory_util'],
        'result_columns': ['workload_class'],
        'workloads': ['idle', 'cpu-bound', 'memory-bound', 'busy'],
    })

    BUSY_PERCENT = 70.0

    def calculate_score(self, features):
        values = _numbers(features)
        if len(values) != 2:
            raise ValueError('expected [cpu_util, memory_util], got %r'
                             % (values,))
        cpu_busy, memory_busy = (v >= self.BUSY_PERCENT for v in values)
        return json.dumps([int(cpu_busy) + 2 * int(memory_busy)])
