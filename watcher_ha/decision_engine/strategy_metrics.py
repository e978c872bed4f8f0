"""How long this decision engine's strategy runs took, by strategy."""

import prometheus_client

# From a dummy's milliseconds to a large cluster's minutes.
STRATEGY_SECONDS = prometheus_client.Histogram(
    'watcher_ha_strategy_duration_seconds',
    'Time one run of a strategy took on this decision engine (an audit, '
    'or a round of a continuous one), whatever its outcome, by strategy.',
    ['strategy'], buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
                           60, 120, 300, 600))


def known(strategies):
    """Series for every installed strategy, so that they are exported
    before their first run."""
    for name in strategies:
        STRATEGY_SECONDS.labels(name)


def timed(strategy):
    """A context manager timing one run of the strategy named so."""
    return STRATEGY_SECONDS.labels(strategy).time()
