"""The metric map file and the datasources the engine loads."""

import pytest

from watcher_ha.decision_engine.datasources import gnocchi
from watcher_ha.decision_engine.datasources import loader
from watcher_ha.decision_engine.datasources import metric_map


def use(ds_conf, path, text):
    path.write_text(text)
    ds_conf.set_override('metric_map_path', str(path),
                         group='watcher_decision_engine')


def test_no_file_no_change(ds_conf):
    assert metric_map.for_datasource(ds_conf, 'gnocchi', {'a': 'b'}) == {
        'a': 'b'}


def test_the_file_overrides_and_removes(ds_conf, tmp_path):
    use(ds_conf, tmp_path / 'map.yaml',
        'gnocchi:\n  instance_cpu_usage: cpu_util\n  host_power: null\n')
    source = gnocchi.GnocchiDatasource(ds_conf)
    assert source.metric_map['instance_cpu_usage'] == 'cpu_util'
    assert not source.supports('host_power')
    assert source.supports('host_airflow')


@pytest.mark.parametrize('text', ['[1, 2]\n', 'gnocchi: [a]\n',
                                  'gnocchi: {host_power: 3}\n',
                                  'gnocchi: {host_power: [\n'])
def test_a_malformed_file_is_refused(ds_conf, tmp_path, text):
    use(ds_conf, tmp_path / 'map.yaml', text)
    with pytest.raises(metric_map.MetricMapError):
        gnocchi.GnocchiDatasource(ds_conf)


def test_the_engine_loads_every_datasource_offline(ds_conf):
    ds_conf.set_override('datasources', ['aetos', 'prometheus', 'gnocchi'],
                         group='watcher_datasources')
    ds_conf.set_override('host', 'prometheus.invalid',
                         group='prometheus_client')
    # No Keystone, no Prometheus: building them contacts nothing.
    names = [source.name for source in loader.load(ds_conf)]
    assert names == ['aetos', 'prometheus', 'gnocchi']


def test_watcher17_default_list_loads_without_grafana(ds_conf):
    """Watcher 17's default, as its sample shows it: grafana, which
    watcher_ha does not have, is passed over; a name nobody has is
    still refused."""
    ds_conf.set_override('datasources', ['gnocchi', 'grafana', 'aetos'],
                         group='watcher_datasources')
    assert [s.name for s in loader.load(ds_conf)] == ['gnocchi', 'aetos']
    ds_conf.set_override('datasources', ['gnocchi', 'grafanna'],
                         group='watcher_datasources')
    with pytest.raises(loader.UnknownDatasource, match='grafanna'):
        loader.load(ds_conf)
