"""The aetos datasource: the prometheus datasource's queries sent through
a Keystone adapter to the metric-storage endpoint, under its path."""

import pytest

from tests.helpers import fake_prometheus as fakes
from watcher_ha.decision_engine.datasources import aetos
from watcher_ha.decision_engine.datasources import base


class UnderPath(fakes.FakePrometheus):
    """Prometheus's API under /prometheus, as behind Aetos."""

    def __call__(self, method, path, query, body):
        assert path.startswith('/prometheus/'), path
        return super().__call__(method, path[len('/prometheus'):], query,
                                body)


def test_queries_go_to_the_metric_storage_endpoint(ds_conf, fake_server):
    fake = UnderPath(['compute-1.example.com'],
                     {'fqdn': {'compute-1.example.com': 12.5}})
    server = fake_server(fake)
    ds_conf.set_override('endpoint_override', server.url + '/prometheus/',
                         group='aetos_client')
    source = aetos.AetosDatasource(ds_conf)
    assert source.statistics('host_cpu_usage', fakes.NODES, 300, 'mean',
                             300) == {'compute-1': 12.5}
    assert [r[1] for r in server.requests] == [
        '/prometheus/api/v1/targets', '/prometheus/api/v1/query']


def test_labels_come_from_aetos_client(ds_conf, fake_server):
    fake = UnderPath([], {'resource': {'u-1': 3.0}})
    server = fake_server(fake)
    ds_conf.set_override('endpoint_override', server.url + '/prometheus',
                         group='aetos_client')
    ds_conf.set_override('instance_uuid_label', 'resource',
                         group='aetos_client')
    ds_conf.set_override('instance_uuid_label', 'uuid',
                         group='prometheus_client')
    source = aetos.AetosDatasource(ds_conf)
    assert source.uuid_label == 'resource'
    assert source.statistics('instance_ram_usage', fakes.SERVERS, 300,
                             'mean', 300) == {'u-1': 3.0}


def test_unreachable_aetos_names_its_endpoint(ds_conf):
    ds_conf.set_override('endpoint_override', 'http://127.0.0.1:9/',
                         group='aetos_client')
    ds_conf.set_override('query_max_retries', 1, group='watcher_datasources')
    source = aetos.AetosDatasource(ds_conf)
    with pytest.raises(base.DatasourceError,
                       match='POST http://127.0.0.1:9/api/v1/query failed'):
        source.statistics('instance_ram_usage', fakes.SERVERS, 300, 'mean',
                          300)
