"""The PromQL of the prometheus and aetos datasources: Watcher 17's query
shapes, for many resources at once."""

import pytest

from watcher_ha.decision_engine.datasources import promql

HOSTS = ['compute-1', 'compute-2.example.com']


def build(metric, series, keys, aggregate='mean', label='fqdn'):
    return promql.build(metric, series, label, keys, 300, aggregate).promql


def test_host_cpu_is_watchers_query_over_a_regex_of_hosts():
    assert build('host_cpu_usage', 'node_cpu_seconds_total', HOSTS) == (
        "100 - (avg by (fqdn)(rate(node_cpu_seconds_total{mode='idle',"
        'fqdn=~"compute-1|compute-2\\\\.example\\\\.com"}[300s])) * 100)')


def test_host_cpu_and_ram_swap_max_and_min_as_watcher():
    assert 'min by (fqdn)' in build('host_cpu_usage', 'node_cpu_seconds_total',
                                    HOSTS, 'max')
    assert 'max_over_time' in build('host_ram_usage',
                                    'node_memory_MemAvailable_bytes',
                                    HOSTS, 'min')
    # count is read as a mean, as Watcher does.
    assert 'avg by (fqdn)' in build('host_cpu_usage',
                                    'node_cpu_seconds_total', HOSTS,
                                    'count')


def test_host_ram_is_total_less_available_in_kib():
    assert build('host_ram_usage', 'node_memory_MemAvailable_bytes',
                 ['h1']) == (
        '(node_memory_MemTotal_bytes{fqdn=~"h1"} - avg_over_time('
        'node_memory_MemAvailable_bytes{fqdn=~"h1"}[300s])) / 1024')


def test_a_selector_keeps_its_own_matchers():
    assert build('host_inlet_temp',
                 'ipmi_temperature_celsius{name="Inlet Temp"}', ['h1'],
                 'max') == (
        'max by (fqdn)(max_over_time(ipmi_temperature_celsius{name="Inlet '
        'Temp",fqdn=~"h1"}[300s]))')
    assert build('host_airflow', 'ipmi_sensor_value{name="System Airflow"}',
                 ['h1']).startswith('10 * avg by (fqdn)')


def test_instance_queries_use_the_uuid_label():
    uuids = ['u-1', 'u-2']
    assert build('instance_cpu_usage', 'ceilometer_cpu', uuids,
                 label='resource') == (
        '(avg by (resource)(rate(ceilometer_cpu{resource=~"u-1|u-2"}'
        '[300s]))/10e+8)')
    assert build('instance_ram_usage', 'ceilometer_memory_usage', uuids,
                 label='resource') == (
        'avg_over_time(ceilometer_memory_usage{resource=~"u-1|u-2"}[300s])')


def test_cpu_percent_divides_by_vcpus_and_clamps_like_watcher():
    assert promql.cpu_percent(1.0, 4) == 25.0
    assert promql.cpu_percent(1.0, 0) == 100.0
    assert promql.cpu_percent(5.0, 4) == 100.0


def test_regex_special_characters_are_escaped():
    assert promql.alternation(['a.b', 'c|d', 'e(f)']) == \
        'a\\.b|c\\|d|e\\(f\\)'


def test_chunks_bound_the_alternation():
    values = ['host-%03d' % i for i in range(100)]
    parts = list(promql.chunks(values, limit=100))
    assert sorted(sum(parts, [])) == values
    assert all(len(promql.alternation(part)) <= 100 for part in parts)
    assert len(parts) > 1


@pytest.mark.parametrize('text', ['', '1abc', 'rate(x[5m])', 'x{a="b"'])
def test_what_is_not_a_selector_is_refused(text):
    with pytest.raises(ValueError):
        promql.parse_selector(text)
