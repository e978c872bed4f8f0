"""What a decision engine's data models and their notification feed look
like to Prometheus.

The feed's counters are kept as notifications are dispatched (in the
engine's process: listener child processes only forward batches to it, so
they export nothing); each model's size, generation and ages are read from
the model when Prometheus scrapes (ModelCollector).
"""

import prometheus_client
from prometheus_client import core

from watcher_ha.decision_engine.model import elements

DISPATCHED = prometheus_client.Counter(
    'watcher_ha_notifications_dispatched',
    'Notifications handed to the data models\' handlers.')
HANDLER_ERRORS = prometheus_client.Counter(
    'watcher_ha_notification_handler_errors',
    'Notifications a handler failed on (the next resync corrects what '
    'they should have changed).')
LAG_SECONDS = prometheus_client.Histogram(
    'watcher_ha_notification_lag_seconds',
    'From a notification\'s timestamp (set by its sender) to its '
    'application to the data models.',
    buckets=(.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300))


def dispatched(events):
    """Count a batch of ``events`` just applied, and their lag."""
    now = elements.utcnow()
    for event in events:
        if event.stamp != elements.EPOCH:
            LAG_SECONDS.observe(max(0.0, (now - event.stamp)
                                    .total_seconds()))
    DISPATCHED.inc(len(events))


def _size(model, collection):
    """How many elements of ``collection`` the model's state holds; None
    (no series) for a model whose state has none (compute has no pools,
    storage no servers)."""
    found = getattr(model.snapshot(), collection, None)
    return None if found is None else len(found)


# (name, help, kind, value of ClusterModel.info() or of its state)
MODEL_METRICS = (
    ('watcher_ha_model_generation', 'Changes applied to the data model '
     'since the engine started.', 'gauge',
     lambda model, info: model.generation),
    ('watcher_ha_model_ready', '1 once a first full sync of the data model '
     'completed.', 'gauge', lambda model, info: int(model.ready)),
    ('watcher_ha_model_seconds_since_resync', 'Seconds since the data model '
     'was last resynced (absent before the first).', 'gauge',
     lambda model, info: info['seconds_since_resync']),
    ('watcher_ha_model_seconds_since_notification', 'Seconds since the '
     'data model last applied a notification (absent before the first).',
     'gauge', lambda model, info: info['seconds_since_notification']),
    ('watcher_ha_model_nodes', 'Nodes in the data model: compute nodes, '
     'or storage backends (host@backend).', 'gauge',
     lambda model, info: len(model.snapshot().nodes)),
    ('watcher_ha_model_instances', 'Servers in the data model (compute '
     'model only).', 'gauge',
     lambda model, info: _size(model, 'instances')),
    ('watcher_ha_model_pools', 'Storage pools in the data model (storage '
     'model only).', 'gauge', lambda model, info: _size(model, 'pools')),
    ('watcher_ha_model_volumes', 'Volumes in the data model (storage '
     'model only).', 'gauge', lambda model, info: _size(model, 'volumes')),
    ('watcher_ha_model_notifications_applied', 'Notifications applied to '
     'the data model.', 'counter',
     lambda model, info: model.notifications_applied),
)

_FAMILIES = {'gauge': core.GaugeMetricFamily,
             'counter': core.CounterMetricFamily}


class ModelCollector:
    """The data models of ``manager`` (a DecisionEngineManager), one
    series per model (label ``model``), read at scrape time."""

    def __init__(self, manager):
        self._manager = manager

    def _models(self):
        collectors = self._manager.collectors
        if collectors is None:
            return []
        return [(name, collectors.model(name)) for name in collectors.list()]

    def describe(self):
        return [_FAMILIES[kind](name, text, labels=['model'])
                for name, text, kind, _ in MODEL_METRICS]

    def collect(self):
        models = [(name, model, model.info())
                  for name, model in self._models()]
        for name, text, kind, read in MODEL_METRICS:
            family = _FAMILIES[kind](name, text, labels=['model'])
            for model_name, model, info in models:
                value = read(model, info)
                if value is not None:
                    family.add_metric([model_name], value)
            yield family
