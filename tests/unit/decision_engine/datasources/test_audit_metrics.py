"""One audit's metric reads: bulk, cached, in the configured order."""

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import metrics

NODES = [c.node('n1'), c.node('n2'), c.node('n3')]
SERVERS = [c.server('a', 'n1'), c.server('b', 'n2')]


class Down(base.Datasource):
    name = 'down'
    metric_map = {'host_cpu_usage': 'q'}

    def __init__(self):
        self.calls = 0

    def statistics(self, metric, resources, period, aggregate,
                   granularity):
        self.calls += 1
        raise base.DatasourceError('http://127.0.0.1:9/api: connection '
                                   'refused')


def test_one_query_per_metric_and_the_rest_from_the_cache():
    source = static_metrics.StaticDatasource(
        {'host_cpu_usage': {'n1': 10.0, 'n2': 20.0}})
    audit = metrics.AuditMetrics([source])
    assert audit.hosts('host_cpu_usage', NODES) == {'n1': 10.0, 'n2': 20.0}
    assert audit.hosts('host_cpu_usage', NODES[:2]) == {'n1': 10.0,
                                                        'n2': 20.0}
    assert len(source.queries) == 1
    # Another period is another question.
    audit.hosts('host_cpu_usage', NODES, period=60)
    assert len(source.queries) == 2


def test_only_resources_not_asked_yet_are_queried():
    asked = []

    class Recording(static_metrics.StaticDatasource):
        def statistics(self, metric, resources, *args):
            asked.append([r.hostname for r in resources])
            return super().statistics(metric, resources, *args)

    audit = metrics.AuditMetrics([Recording({'host_cpu_usage': {}})])
    audit.hosts('host_cpu_usage', NODES[:1])
    audit.hosts('host_cpu_usage', NODES)
    assert asked == [['n1'], ['n2', 'n3']]


def test_falls_back_to_the_next_datasource_and_stays_there():
    down = Down()
    static = static_metrics.StaticDatasource({'host_cpu_usage': {'n1': 5}})
    audit = metrics.AuditMetrics([down, static])
    assert audit.hosts('host_cpu_usage', NODES[:1]) == {'n1': 5}
    audit.hosts('host_cpu_usage', NODES)
    assert down.calls == 1


def test_a_datasource_without_the_metric_is_skipped():
    static = static_metrics.StaticDatasource(
        {'instance_cpu_usage': {'uuid-a': 50.0}})
    audit = metrics.AuditMetrics([Down(), static])
    assert audit.instances('instance_cpu_usage', SERVERS) == {
        'uuid-a': 50.0}


def test_no_datasource_can_answer_names_metric_and_each_reason():
    audit = metrics.AuditMetrics([Down()])
    with pytest.raises(metrics.MetricUnavailable) as err:
        audit.hosts('host_cpu_usage', NODES)
    assert 'host_cpu_usage' in str(err.value)
    assert 'down: http://127.0.0.1:9/api: connection refused' in str(
        err.value)


def test_no_datasource_maps_the_metric():
    audit = metrics.AuditMetrics([Down()])
    with pytest.raises(metrics.MetricUnavailable,
                       match='host_outlet_temp is not provided by any '
                             'configured datasource \\(down\\)'):
        audit.hosts('host_outlet_temp', NODES)


def test_no_datasource_configured():
    with pytest.raises(metrics.MetricUnavailable,
                       match='no datasource is configured'):
        metrics.AuditMetrics([]).hosts('host_cpu_usage', NODES)


@pytest.mark.parametrize('call, metric, aggregate', [
    ('hosts', 'instance_cpu_usage', 'mean'),
    ('instances', 'host_cpu_usage', 'mean'),
    ('hosts', 'host_cpu_usage', 'median'),
])
def test_wrong_kind_of_metric_or_aggregate(call, metric, aggregate):
    audit = static_metrics.audit_metrics({metric: {}})
    with pytest.raises(ValueError):
        getattr(audit, call)(metric, [], aggregate=aggregate)
