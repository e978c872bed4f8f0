"""The metrics one audit reads: through the configured datasources in
order, each answer kept for the rest of the audit.

A metric goes to the first datasource of ``[watcher_datasources]
datasources`` that maps it; if that one cannot answer, to the next one
that does. When none can, the audit fails with a message naming the
metric and what each datasource said: a strategy never plans on a
partial guess.
"""

from oslo_log import log

from watcher_ha.decision_engine.datasources import base

LOG = log.getLogger(__name__)

# Watcher's defaults for strategies that do not say.
DEFAULT_PERIOD = 300
DEFAULT_GRANULARITY = 300


class MetricUnavailable(Exception):
    """No configured datasource could give a metric; the message names
    the metric and each datasource's reason."""


class AuditMetrics:
    """Metric reads for one audit, cached by (metric, period, aggregate,
    granularity) and resource key."""

    def __init__(self, datasources):
        self.datasources = list(datasources)
        self._cache = {}
        # metric -> the datasource that answered it first: later reads
        # of the same metric stay on it, so that one plan never mixes
        # two sources' figures for one metric.
        self._chosen = {}

    def hosts(self, metric, nodes, period=DEFAULT_PERIOD, aggregate='mean',
              granularity=DEFAULT_GRANULARITY):
        """{hostname: value} of a host metric for ``nodes``
        (ComputeNode elements); a node without data is left out."""
        if metric not in base.HOST_METRICS:
            raise ValueError('%s is not a host metric (one of %s)'
                             % (metric, ', '.join(sorted(base.HOST_METRICS))))
        return self._read(metric, nodes, lambda node: node.hostname,
                          period, aggregate, granularity)

    def instances(self, metric, instances, period=DEFAULT_PERIOD,
                  aggregate='mean', granularity=DEFAULT_GRANULARITY):
        """{uuid: value} of an instance metric for ``instances``
        (Instance elements); a server without data is left out."""
        if metric not in base.INSTANCE_METRICS:
            raise ValueError('%s is not an instance metric (one of %s)'
                             % (metric,
                                ', '.join(sorted(base.INSTANCE_METRICS))))
        return self._read(metric, instances, lambda server: server.uuid,
                          period, aggregate, granularity)

    def _read(self, metric, resources, key_of, period, aggregate,
              granularity):
        if aggregate not in base.AGGREGATES:
            raise ValueError('aggregate %r is not one of %s'
                             % (aggregate, ', '.join(base.AGGREGATES)))
        keyed = {key_of(r): r for r in resources}
        cache = self._cache.setdefault(
            (metric, period, aggregate, granularity), {})
        asked = self._cache.setdefault(
            ('asked', metric, period, aggregate, granularity), set())
        missing = keyed.keys() - asked
        if missing:
            cache.update(self._query(metric,
                                     [keyed[k] for k in keyed
                                      if k in missing],
                                     period, aggregate, granularity))
            asked.update(missing)
        return {k: cache[k] for k in keyed if k in cache}

    def _query(self, metric, resources, period, aggregate, granularity):
        chosen = self._chosen.get(metric)
        candidates = [chosen] if chosen is not None else [
            source for source in self.datasources if source.supports(metric)]
        reasons = []
        for source in candidates:
            try:
                values = source.statistics(metric, resources, period,
                                           aggregate, granularity)
            except base.DatasourceError as err:
                LOG.warning('Datasource %s could not give %s: %s',
                            source.name, metric, err)
                reasons.append('%s: %s' % (source.name, err))
                continue
            self._chosen[metric] = source
            return values
        if not self.datasources:
            raise MetricUnavailable(
                'metric %s is needed and no datasource is configured: set '
                '[watcher_datasources] datasources' % metric)
        if not reasons:
            raise MetricUnavailable(
                'metric %s is not provided by any configured datasource '
                '(%s); add one that has it to [watcher_datasources] '
                'datasources, or map it in a metric map file'
                % (metric, ', '.join(s.name for s in self.datasources)))
        raise MetricUnavailable('metric %s could not be read: %s'
                                % (metric, '; '.join(reasons)))
