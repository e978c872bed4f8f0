"""The gnocchi datasource against a fake Gnocchi that answers
``POST /v1/aggregates`` with a resource search as Gnocchi 4 does
(gnocchi/rest/aggregates/api.py: measures keyed by resource id, then
metric name, then aggregation; ``references`` with details=true; 404
when no resource found has the metric)."""

import uuid

import pytest

from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import gnocchi
from watcher_ha.decision_engine.model import elements

NODES = [elements.ComputeNode(hostname=name)
         for name in ('compute-1', 'compute-2')]
SERVERS = [elements.Instance(uuid=str(uuid.UUID(int=i)), vcpus=i)
           for i in (1, 2)]


def resource(original_id, metrics, resource_type='generic'):
    # Gnocchi turns a non-UUID id into a UUID5 of it.
    try:
        resource_id = str(uuid.UUID(original_id))
    except ValueError:
        resource_id = str(uuid.uuid5(uuid.NAMESPACE_URL, original_id))
    return {'id': resource_id, 'original_resource_id': original_id,
            'type': resource_type, 'metrics': metrics}


class FakeGnocchi:
    def __init__(self, resources, failures=()):
        self.resources = resources
        self.failures = list(failures)

    def __call__(self, method, path, query, body):
        if self.failures:
            return self.failures.pop(0)
        if path == '/v1/status':
            return 200, {'storage': {'summary': {'metrics': 0}}}
        assert (method, path) == ('POST', '/v1/aggregates')
        assert body['resource_type'] == 'generic'
        [(attribute, wanted)] = body['search']['in'].items()
        kind, name, aggregation = body['operations']
        assert kind == 'metric'
        found = [r for r in self.resources if r[attribute] in wanted
                 and name in r['metrics']]
        if not found:
            return 404, {'code': 404, 'title': 'Not Found',
                         'description': 'Metric %s does not exist' % name}
        answer = {'measures': {r['id']: {name: {aggregation: r['metrics'][
            name].get(aggregation, [])}} for r in found}}
        if query.get('details') == ['true']:
            answer['references'] = [
                {k: v for k, v in r.items() if k != 'metrics'}
                for r in found]
        return 200, answer


def series(*values, granularity=300.0):
    return [['2026-01-01T00:%02d:00+00:00' % (5 * i), granularity, value]
            for i, value in enumerate(values)]


@pytest.fixture
def datasource(ds_conf, fake_server):
    def build(fake):
        server = fake_server(fake)
        ds_conf.set_override('endpoint_override', server.url,
                             group='gnocchi_client')
        return gnocchi.GnocchiDatasource(ds_conf), server
    return build


def test_hosts_in_one_search_with_watchers_resource_ids(datasource):
    fake = FakeGnocchi([
        resource('compute-1_compute-1', {'compute.node.cpu.percent': {
            'mean': series(10.0, 42.0), 'max': series(90.0)}}),
        resource('compute-2_compute-2', {'compute.node.cpu.percent': {
            'mean': series(7.0)}}),
        resource('compute-9_compute-9', {'compute.node.cpu.percent': {
            'mean': series(1.0)}})])
    source, server = datasource(fake)
    # The last measure of the window, as Watcher.
    assert source.statistics('host_cpu_usage', NODES, 600, 'mean',
                             300) == {'compute-1': 42.0, 'compute-2': 7.0}
    [(method, path, query, body, _)] = server.requests
    assert body['search'] == {'in': {'original_resource_id': [
        'compute-1_compute-1', 'compute-2_compute-2']}}
    assert query['granularity'] == ['300']
    assert query['details'] == ['true']
    assert {'start', 'stop'} <= set(query)


def test_instance_cpu_from_the_rate_of_cpu_time(datasource):
    fake = FakeGnocchi([
        resource(SERVERS[0].uuid, {'cpu': {'rate:mean': series(
            -5.0, 1.5e11)}}, 'instance'),
        resource(SERVERS[1].uuid, {'cpu': {'rate:mean': series(
            -3e11)}}, 'instance')])
    source, server = datasource(fake)
    values = source.statistics('instance_cpu_usage', SERVERS, 300, 'mean',
                               300)
    # 1.5e11 ns in 300 s on 1 vcpu: 50 %; a negative rate (migration): 0.
    assert values == {SERVERS[0].uuid: pytest.approx(50.0),
                      SERVERS[1].uuid: 0.0}
    assert server.requests[0][3]['operations'] == ['metric', 'cpu',
                                                   'rate:mean']
    with pytest.raises(base.DatasourceError, match='mean only'):
        source.statistics('instance_cpu_usage', SERVERS, 300, 'max', 300)


def test_airflow_times_ten_as_watcher(datasource):
    fake = FakeGnocchi([resource('compute-1_compute-1', {
        'hardware.ipmi.node.airflow': {'mean': series(35.0)}})])
    source, _ = datasource(fake)
    assert source.statistics('host_airflow', NODES, 300, 'count',
                             300) == {'compute-1': 350.0}


def test_a_metric_no_resource_has_is_an_error(datasource):
    source, _ = datasource(FakeGnocchi([]))
    with pytest.raises(base.DatasourceError, match='host_power'):
        source.statistics('host_power', NODES, 300, 'mean', 300)


def test_many_resources_are_searched_in_chunks(datasource, monkeypatch):
    monkeypatch.setattr(gnocchi, 'CHUNK', 1)
    fake = FakeGnocchi([resource(s.uuid, {'memory.resident': {
        'mean': series(100.0 * s.vcpus)}}) for s in SERVERS])
    source, server = datasource(fake)
    assert source.statistics('instance_ram_usage', SERVERS, 300, 'mean',
                             300) == {SERVERS[0].uuid: 100.0,
                                      SERVERS[1].uuid: 200.0}
    assert len(server.requests) == 2


def test_a_server_error_is_tried_again_then_named(datasource, ds_conf):
    fake = FakeGnocchi([], failures=[(500, {'error': 'boom'})] * 5)
    source, server = datasource(fake)
    with pytest.raises(base.DatasourceError) as caught:
        source.statistics('host_ram_usage', NODES, 300, 'mean', 300)
    assert len(server.requests) == 3
    assert 'POST %s/v1/aggregates failed 3 time(s): HTTP 500' % server.url \
        in str(caught.value)


def test_check_available(datasource):
    source, server = datasource(FakeGnocchi([]))
    source.check_available()
    assert server.requests[0][1] == '/v1/status'
