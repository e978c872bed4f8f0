"""The prometheus datasource against a fake Prometheus HTTP API: bulk
queries, host resolution through the targets, Watcher's units, retries
and errors."""

import base64

import pytest

from tests.helpers.fake_prometheus import FakePrometheus
from tests.helpers.fake_prometheus import NODES
from tests.helpers.fake_prometheus import SERVERS
from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import metric_map
from watcher_ha.decision_engine.datasources import metrics
from watcher_ha.decision_engine.datasources import prometheus
from watcher_ha.decision_engine.datasources import promql


@pytest.fixture
def datasource(ds_conf, fake_server):
    def build(fake, **options):
        server = fake_server(fake)
        ds_conf.set_override('host', '127.0.0.1', group='prometheus_client')
        ds_conf.set_override('port', server.port, group='prometheus_client')
        for name, value in options.items():
            ds_conf.set_override(name, value, group='prometheus_client')
        return prometheus.PrometheusDatasource(ds_conf), server
    return build


def queries(server):
    return [body['query'][0] for method, path, _, body, _ in server.requests
            if path == '/api/v1/query']


def test_one_query_answers_every_host(datasource):
    fake = FakePrometheus(['compute-1.example.com', 'compute-2', 'other'],
                          {'fqdn': {'compute-1.example.com': 40.0,
                                    'compute-2': 10.0, 'other': 99.0}})
    source, server = datasource(fake)
    values = source.statistics('host_cpu_usage', NODES, 300, 'mean', 300)
    # compute-1 by the first part of its fqdn; compute-3 is no target.
    assert values == {'compute-1': 40.0, 'compute-2': 10.0}
    [text] = queries(server)
    assert 'fqdn=~"compute-1\\\\.example\\\\.com|compute-2"' in text
    # Targets read once; compute-3 is missing but just read.
    assert [r[1] for r in server.requests] == ['/api/v1/targets',
                                               '/api/v1/query']


def test_instance_cpu_is_percent_of_each_servers_vcpus(datasource):
    fake = FakePrometheus([], {'resource': {'u-1': 0.5, 'u-2': 0.5,
                                            'u-4': 8.0}})
    source, server = datasource(fake)
    assert source.statistics('instance_cpu_usage', SERVERS, 300, 'mean',
                             300) == {'u-1': 50.0, 'u-2': 25.0,
                                      'u-4': 100.0}
    assert len(queries(server)) == 1


def test_allocated_ram_and_root_disk_come_from_the_model(datasource):
    source, server = datasource(FakePrometheus([]))
    assert source.statistics('instance_ram_allocated', SERVERS, 300,
                             'mean', 300) == {'u-1': 512.0, 'u-2': 1024.0,
                                              'u-4': 2048.0}
    assert source.statistics('instance_root_disk_size', SERVERS, 300,
                             'mean', 300)['u-4'] == 40.0
    assert server.requests == []


def test_many_servers_are_asked_in_chunks(datasource, monkeypatch):
    monkeypatch.setattr(promql, 'MAX_ALTERNATION', 10)
    fake = FakePrometheus([], {'resource': {'u-1': 1.0, 'u-2': 2.0,
                                            'u-4': 4.0}})
    source, server = datasource(fake)
    assert source.statistics('instance_ram_usage', SERVERS, 300, 'mean',
                             300) == {'u-1': 1.0, 'u-2': 2.0, 'u-4': 4.0}
    assert len(queries(server)) == 2


def test_no_value_at_all_is_an_error_naming_the_metric(datasource):
    source, _ = datasource(FakePrometheus(['compute-1'], {'fqdn': {}}))
    with pytest.raises(base.DatasourceError, match='host_power'):
        source.statistics('host_power', NODES, 300, 'mean', 300)


def test_no_host_among_the_targets_is_an_error(datasource):
    source, server = datasource(FakePrometheus(['elsewhere']))
    with pytest.raises(base.DatasourceError, match='scrape target'):
        source.statistics('host_cpu_usage', NODES, 300, 'mean', 300)
    assert queries(server) == []


def test_a_transient_failure_is_tried_again(datasource):
    fake = FakePrometheus(['compute-1'], {'fqdn': {'compute-1': 5.0}},
                          failures=[(503, {'status': 'error'})] * 2)
    source, server = datasource(fake)
    assert source.statistics('host_ram_usage', NODES[:1], 300, 'max',
                             300) == {'compute-1': 5.0}
    assert len(server.requests) == 4


def test_a_refused_query_is_not_tried_again(datasource):
    fake = FakePrometheus([], failures=[(400, {
        'status': 'error', 'errorType': 'bad_data', 'error': 'parse error'})])
    source, server = datasource(fake)
    with pytest.raises(base.DatasourceError, match='HTTP 400: parse error'):
        source.statistics('instance_ram_usage', SERVERS, 300, 'mean', 300)
    assert len(server.requests) == 1


def test_unreachable_prometheus_names_the_url(ds_conf):
    ds_conf.set_override('host', '127.0.0.1', group='prometheus_client')
    ds_conf.set_override('port', 9, group='prometheus_client')
    ds_conf.set_override('query_max_retries', 2, group='watcher_datasources')
    source = prometheus.PrometheusDatasource(ds_conf)
    with pytest.raises(base.DatasourceError) as caught:
        source.statistics('instance_cpu_usage', SERVERS, 300, 'mean', 300)
    assert 'POST http://127.0.0.1:9/api/v1/query failed 2 time' in str(
        caught.value)
    with pytest.raises(metrics.MetricUnavailable,
                       match='instance_cpu_usage.*prometheus: POST'):
        metrics.AuditMetrics([source]).instances('instance_cpu_usage',
                                                 SERVERS)


def test_basic_auth_is_sent(datasource):
    fake = FakePrometheus([], {'resource': {'u-1': 1.0}})
    source, server = datasource(fake, username='watcher', password='s3')
    source.statistics('instance_ram_usage', SERVERS, 300, 'mean', 300)
    headers = server.requests[0][4]
    assert headers['Authorization'] == 'Basic ' + base64.b64encode(
        b'watcher:s3').decode()


def test_check_available(datasource, ds_conf):
    source, server = datasource(FakePrometheus([]))
    source.check_available()
    assert server.requests[0][1] == '/api/v1/status/runtimeinfo'


def test_a_host_is_required(ds_conf):
    with pytest.raises(base.DatasourceError, match='host is not set'):
        prometheus.PrometheusDatasource(ds_conf)


def test_the_metric_map_file_overrides_the_series(datasource, ds_conf,
                                                  tmp_path):
    path = tmp_path / 'metric_map.yaml'
    path.write_text('prometheus:\n'
                    '  host_outlet_temp: \'temp{sensor="out"}\'\n'
                    '  host_power: null\n'
                    'gnocchi:\n  host_power: power\n')
    ds_conf.set_override('metric_map_path', str(path),
                         group='watcher_decision_engine')
    fake = FakePrometheus(['compute-1'], {'fqdn': {'compute-1': 30.0}})
    source, server = datasource(fake)
    assert not source.supports('host_power')
    assert source.supports('host_inlet_temp')
    source.statistics('host_outlet_temp', NODES, 300, 'mean', 300)
    assert 'temp{sensor="out",fqdn=~"compute-1"}' in queries(server)[0]


def test_a_bad_selector_in_the_metric_map_stops_the_start(ds_conf,
                                                          tmp_path):
    path = tmp_path / 'metric_map.yaml'
    path.write_text('prometheus: {host_power: "sum(x)"}\n')
    ds_conf.set_override('metric_map_path', str(path),
                         group='watcher_decision_engine')
    ds_conf.set_override('host', 'localhost', group='prometheus_client')
    with pytest.raises(metric_map.MetricMapError, match='host_power'):
        prometheus.PrometheusDatasource(ds_conf)
