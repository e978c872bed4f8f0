"""watcher_ha's prometheus datasource against a real Prometheus scraping
the simulator (prometheus_server.py): every metric, for every host or
server, in one query per metric; and with Prometheus stopped, an audit's
metric read fails naming the datasource and the metric."""

import pytest

from tests.functional import prometheus_server
from tests.functional.prometheus_server import EXPECTED_HOSTS
from tests.functional.prometheus_server import EXPECTED_SERVERS
from tests.functional.prometheus_server import PERIOD
from tests.functional.prometheus_server import SPEC
from tests.helpers.datasource_conf import datasource_conf
from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import metrics
from watcher_ha.decision_engine.datasources import prometheus
from watcher_ha.decision_engine.model import elements
from watcher_ha.simulator import metrics as sim_metrics
from watcher_ha.simulator import scenario

# As test_prometheus.py: rates are off by the scrape lag; gauges exact.
CPU_TOLERANCE = 0.03
EXACT = 1e-9

FLAVORS = {flavor['name']: flavor for flavor in scenario.FLAVORS}
NODES = [elements.ComputeNode(hostname=host['name'], vcpus=host['vcpus'])
         for host in SPEC['hosts']]
SERVERS = [elements.Instance(
    uuid=server['uuid'], host=server['host'],
    vcpus=FLAVORS[server['flavor']]['vcpus'],
    memory_mb=FLAVORS[server['flavor']]['ram'],
    disk_gb=FLAVORS[server['flavor']]['disk'])
    for server in SPEC['servers']]


@pytest.fixture
def conf(tmp_path):
    return datasource_conf(tmp_path, retries=2,
                           prometheus_client={'host': '127.0.0.1'})


def datasource(conf, url):
    conf.set_override('port', int(url.rsplit(':', 1)[1]),
                      group='prometheus_client')
    source = prometheus.PrometheusDatasource(conf)
    sent = []
    send = source._send

    def counting(method, path, **kwargs):
        sent.append((method, path))
        return send(method, path, **kwargs)
    source._send = counting
    return source, sent


def expected_hosts():
    """{metric: {host: value}} the scenario implies."""
    out = {}
    for host, usage in EXPECTED_HOSTS.items():
        sensors = sim_metrics.host_sensors(usage['cpu'] / 100)
        for metric, value in (
                ('host_cpu_usage', usage['cpu']),
                ('host_ram_usage', usage['ram_kb']),
                ('host_inlet_temp', sensors['inlet_temp']),
                ('host_outlet_temp', sensors['outlet_temp']),
                ('host_airflow', 10 * sensors['airflow_cfm']),
                ('host_power', sensors['power_w'])):
            out.setdefault(metric, {})[host] = value
    return out


def expected_servers():
    """{metric: {uuid: value}} the scenario implies."""
    out = {}
    wanted = {}
    for server in SERVERS:
        _, cpu, ram_mb = EXPECTED_SERVERS[server.uuid]
        wanted.setdefault(server.host, {})[server.uuid] = (
            sim_metrics.L3_WANTED_PER_VCPU * server.vcpus * cpu / 100)
        for metric, value in (
                ('instance_cpu_usage', cpu),
                ('instance_ram_usage', ram_mb),
                ('instance_ram_allocated', float(server.memory_mb)),
                ('instance_root_disk_size', float(server.disk_gb))):
            out.setdefault(metric, {})[server.uuid] = value
    for node in NODES:
        for uuid, held in sim_metrics.l3_cache(
                wanted.get(node.hostname, {}), node.vcpus).items():
            out.setdefault('instance_l3_cache_usage', {})[uuid] = held
    return out


def test_every_metric_in_one_query_each(tmp_path, conf):
    with prometheus_server.scraped_simulator(tmp_path) as (_, url):
        source, sent = datasource(conf, url)
        targets_reads = 0
        for metric, expected in sorted(expected_hosts().items()):
            del sent[:]
            values = source.statistics(metric, NODES, PERIOD, 'mean', 300)
            tolerance = CPU_TOLERANCE if metric == 'host_cpu_usage' \
                else EXACT
            assert values == {host: pytest.approx(value, rel=tolerance)
                              for host, value in expected.items()}, metric
            queries = [s for s in sent if s[1] == '/api/v1/query']
            assert len(queries) == 1, (metric, sent)
            targets_reads += len(sent) - len(queries)
        # Hosts are found through the targets, read once for them all.
        assert targets_reads == 1
        for metric, expected in sorted(expected_servers().items()):
            del sent[:]
            values = source.statistics(metric, SERVERS, PERIOD, 'mean', 300)
            tolerance = CPU_TOLERANCE if metric == 'instance_cpu_usage' \
                else EXACT
            assert values == {uuid: pytest.approx(value, rel=tolerance,
                                                  abs=1e-6)
                              for uuid, value in expected.items()}, metric
            # Allocated RAM and root disk come from the model, as Watcher.
            assert len(sent) == (
                0 if metric in ('instance_ram_allocated',
                                'instance_root_disk_size') else 1), metric
        # Every metric strategies read was read.
        assert base.HOST_METRICS == set(expected_hosts())
        assert base.INSTANCE_METRICS == set(expected_servers())


def test_a_stopped_prometheus_fails_the_metric_naming_both(tmp_path, conf):
    with prometheus_server.prometheus(tmp_path, {'scrape_configs': []}) \
            as url:
        source, _ = datasource(conf, url)
        source.check_available()
    audit = metrics.AuditMetrics([source])
    with pytest.raises(metrics.MetricUnavailable) as caught:
        audit.hosts('host_cpu_usage', NODES)
    message = str(caught.value)
    assert 'host_cpu_usage' in message
    assert 'prometheus: GET %s/api/v1/targets' % url in message
    with pytest.raises(base.DatasourceError):
        source.check_available()
