"""A datasource with fixed values, for strategy unit tests and the
strategy benchmark: what a real one would answer, given up front.

``values`` is {metric: {hostname or server uuid: value}}; a metric not
given is one this datasource does not provide, a resource not given one
it has no data for.
"""

from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import metrics


class StaticDatasource(base.Datasource):
    name = 'static'

    def __init__(self, values):
        self.values = values
        self.metric_map = {metric: metric for metric in values}
        self.queries = []

    def statistics(self, metric, resources, period, aggregate,
                   granularity):
        self.queries.append((metric, period, aggregate, granularity))
        known = self.values[metric]
        out = {}
        for resource in resources:
            key = (resource.hostname if metric in base.HOST_METRICS
                   else resource.uuid)
            if key in known:
                out[key] = known[key]
        return out


def audit_metrics(values):
    """An AuditMetrics over one StaticDatasource of ``values``."""
    return metrics.AuditMetrics([StaticDatasource(values)])
