"""The daemons' Prometheus endpoints and the API's health check, on real
processes (RabbitMQ, MariaDB, the simulator as Nova): an audit and its
plan move the metrics each daemon exports, and a real Prometheus scraping
them answers every query of the Grafana dashboard."""


import pytest
import requests
from prometheus_client import parser

from tests.functional import daemons
from tests.functional import fixtures
from tests.functional import identity
from tests.functional import prometheus_server
from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.fixtures import wait_for
from tests.helpers import grafana
from watcher_ha.simulator import scenario

SPEC = scenario.generate(hosts=3, servers=6, seed=7, volumes=4)
# Prometheus scrapes every second; the dashboard's $__rate_interval is
# replaced by a window holding several scrapes.
RATE_WINDOW = '20s'
SCRAPES = 6
DAEMONS = ('api', 'decision_engine', 'applier')


def nova_sections(url):
    return identity.cloud_sections(url, 'nova', 'placement', 'cinder')


def scrape(url):
    """{(name, frozenset(labels)): value} of a metrics endpoint."""
    reply = requests.get(url, timeout=10)
    assert reply.status_code == 200, reply.text
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in parser.text_string_to_metric_families(reply.text)
            for sample in family.samples}


def sample(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


def total(samples, name, **labels):
    """The sum of ``name``'s samples that have ``labels``."""
    wanted = set(labels.items())
    return sum(value for (found, have), value in samples.items()
               if found == name and wanted <= have)


@pytest.fixture
def metered(tmp_path, own_rabbit):
    """A cluster with metrics on, its simulated Nova sending notifications:
    (cluster, {daemon: metrics URL}, simulator URL)."""
    prometheus_server.prometheus_binary()   # fail or skip before starting
    ports = {name: fixtures.free_port() for name in DAEMONS}
    with services.database('mysql') as (db_url, _), \
            services.simulator(tmp_path / 'sim', SPEC,
                               transport_url=own_rabbit) as sim_url, \
            services.cluster(tmp_path, db_url, own_rabbit, metrics=dict(
                {'enabled': True, 'host': '127.0.0.1'},
                **{name + '_port': port
                   for name, port in ports.items()}),
                # Both models, so that the dashboard's storage
                # panels have data too.
                watcher_decision_engine={
                             'collectors': 'compute,storage'},
                **nova_sections(sim_url)) as cluster:
        cluster.start_daemons(engines=['engine-1'],
                              appliers=['applier-1'])
        yield cluster, {name: 'http://127.0.0.1:%d/metrics' % port
                        for name, port in ports.items()}, sim_url


def test_metrics_move_and_prometheus_answers_the_dashboard(tmp_path,
                                                           metered):
    cluster, urls, sim_url = metered
    engine_url = urls['decision_engine']
    for model in ('compute', 'storage'):
        wait_for(lambda: sample(scrape(engine_url), 'watcher_ha_model_ready',
                                model=model) == 1, 60, model + ' model ready')

    audit = daemons.cli(cluster.url, 'audit', 'create', '-g', 'dummy', '-s',
                        'dummy', '-t', 'ONESHOT', '-p', 'para1=1')
    wait_for(lambda: daemons.state_of(cluster.url, 'audits', audit['UUID'])
             == 'SUCCEEDED', 30, 'audit SUCCEEDED')
    [plan] = daemons.cli(cluster.url, 'actionplan', 'list', '--audit',
                         audit['UUID'])
    daemons.cli(cluster.url, 'actionplan', 'start', plan['UUID'])
    wait_for(lambda: daemons.state_of(cluster.url, 'action_plans',
                                      plan['UUID']) == 'SUCCEEDED', 30,
             'plan SUCCEEDED')
    # A notification from Nova, for the model's lag and age.
    client = nova(sim_url)
    client.servers.stop(client.servers.list()[0])
    wait_for(lambda: total(scrape(engine_url),
                           'watcher_ha_notification_lag_seconds_count') > 0,
             30, 'a notification applied')

    api = scrape(urls['api'])
    assert sample(api, 'watcher_ha_audits', state='SUCCEEDED') >= 1
    assert sample(api, 'watcher_ha_action_plans', state='SUCCEEDED') >= 1
    assert total(api, 'watcher_ha_api_requests_total', method='POST',
                 route='/v1/audits', status='201') == 1
    assert total(api, 'watcher_ha_api_request_duration_seconds_count',
                 route='/v1/audits/{id}') >= 1
    assert total(api, 'watcher_ha_db_statement_duration_seconds_count',
                 operation='select') > 0

    applier = scrape(urls['applier'])
    assert sample(applier, 'watcher_ha_actions_total', action_type='nop',
                  state='SUCCEEDED') == 2
    assert sample(applier, 'watcher_ha_actions_total', action_type='sleep',
                  state='SUCCEEDED') == 1
    assert total(applier,
                 'watcher_ha_db_statement_duration_seconds_count') > 0
    # The dummy's plan: 2 nop and a sleep of 1 s, run in one go here.
    assert sample(applier, 'watcher_ha_action_duration_seconds_count',
                  action_type='nop') == 2
    assert sample(applier, 'watcher_ha_action_duration_seconds_sum',
                  action_type='sleep') >= 1
    assert sample(applier, 'watcher_ha_action_plan_duration_seconds_count',
                  state='SUCCEEDED') == 1
    assert sample(applier, 'watcher_ha_action_plan_duration_seconds_sum',
                  state='SUCCEEDED') >= 1

    engine = scrape(engine_url)
    assert sample(engine, 'watcher_ha_model_nodes', model='compute') == 3
    assert sample(engine, 'watcher_ha_model_instances', model='compute') == 6
    assert sample(engine, 'watcher_ha_model_generation', model='compute') > 0
    assert sample(engine, 'watcher_ha_model_volumes', model='storage') == 4
    assert sample(engine, 'watcher_ha_model_pools', model='storage') > 0
    assert sample(engine, 'watcher_ha_model_seconds_since_resync',
                  model='compute') >= 0
    assert sample(engine, 'watcher_ha_model_notifications_applied_total',
                  model='compute') > 0
    assert total(engine, 'watcher_ha_rpc_handling_duration_seconds_count',
                 method='trigger_audit') >= 1
    assert sample(engine, 'watcher_ha_strategy_duration_seconds_count',
                  strategy='dummy') == 1
    # Every installed strategy, before its first run.
    assert sample(engine, 'watcher_ha_strategy_duration_seconds_count',
                  strategy='basic') == 0
    assert total(engine,
                 'watcher_ha_db_statement_duration_seconds_count') > 0

    # Without a token: the health check answers whatever the auth.
    assert requests.get(cluster.url + '/healthcheck',
                        timeout=10).status_code == 200

    config = {'global': {'scrape_interval': '1s', 'scrape_timeout': '1s'},
              'scrape_configs': [
                  {'job_name': 'watcher-ha-' + name.replace('_', '-'),
                   'static_configs': [{'targets': [url.split('/')[2]]}]}
                  for name, url in urls.items()]}
    with prometheus_server.prometheus(tmp_path, config) as prometheus:
        wait_for(lambda: len(prometheus_server.query(
            prometheus, 'count_over_time(up[%s]) >= %d'
            % (RATE_WINDOW, SCRAPES))) == len(DAEMONS), 30,
            '%d scrapes of every daemon' % SCRAPES)
        assert prometheus_server.query(prometheus, 'min(up)') == [1.0]
        empty = [expr for expr in grafana.queries()
                 if not prometheus_server.query(prometheus, expr.replace(
                     '$__rate_interval', RATE_WINDOW))]
        assert empty == []


def _api_config(tmp_path, workers):
    port, metrics_port = fixtures.free_port(), fixtures.free_port()
    config = fixtures.write_config(
        tmp_path / 'watcher-ha.conf', fixtures.base_config(
            tmp_path, port=port, api={'workers': workers},
            metrics={'enabled': True, 'api_port': metrics_port}))
    fixtures.prepare_database(config)
    return config, port, 'http://127.0.0.1:%d/metrics' % metrics_port


def test_several_api_workers_add_up_their_counts(tmp_path, monkeypatch):
    shared = tmp_path / 'prometheus'
    shared.mkdir()
    (shared / 'counter_1.db').write_bytes(b'left by an earlier run')
    monkeypatch.setenv('PROMETHEUS_MULTIPROC_DIR', str(shared))
    config, port, metrics_url = _api_config(tmp_path, workers=3)
    with services.api_process(config, port) as url:
        for _ in range(12):
            # A connection each: the workers share them out.
            assert requests.get(url + '/v1/goals', timeout=10,
                                headers={'Connection': 'close'}
                                ).status_code == 200
        # Whichever worker answers the scrape, it counts them all.
        for _ in range(6):
            samples = scrape(metrics_url)
            assert total(samples, 'watcher_ha_api_requests_total',
                         method='GET', route='/v1/goals') == 12
            assert sample(samples, 'watcher_ha_audits',
                          state='PENDING') == 0


def test_several_api_workers_without_the_directory_refuse_to_start(
        tmp_path, monkeypatch):
    monkeypatch.delenv('PROMETHEUS_MULTIPROC_DIR', raising=False)
    config, port, _ = _api_config(tmp_path, workers=2)
    result = fixtures.run(fixtures.BIN + '/watcher-ha-api', '--config-file',
                          str(config), check=False, timeout=60)
    assert result.returncode != 0
    assert 'needs the environment variable PROMETHEUS_MULTIPROC_DIR' in (
        result.stderr), result.stderr


def test_the_all_in_one_serves_the_three_on_one_endpoint(tmp_path):
    config, port, metrics_url = _api_config(tmp_path, workers=1)
    with services.all_in_one(config, port) as url:
        audit = daemons.cli(url, 'audit', 'create', '-g', 'dummy', '-s',
                            'dummy', '-t', 'ONESHOT', '-p', 'para1=1')
        wait_for(lambda: daemons.state_of(url, 'audits', audit['UUID'])
                 == 'SUCCEEDED', 20, 'audit SUCCEEDED')
        [plan] = daemons.cli(url, 'actionplan', 'list', '--audit',
                             audit['UUID'])
        daemons.cli(url, 'actionplan', 'start', plan['UUID'])
        wait_for(lambda: daemons.state_of(url, 'action_plans', plan['UUID'])
                 == 'SUCCEEDED', 20, 'plan SUCCEEDED')
        samples = scrape(metrics_url)
    assert sample(samples, 'watcher_ha_audits', state='SUCCEEDED') == 1
    assert sample(samples, 'watcher_ha_actions_total', action_type='nop',
                  state='SUCCEEDED') == 2
    assert total(samples, 'watcher_ha_api_requests_total', method='POST',
                 route='/v1/audits', status='201') == 1
    assert total(samples, 'watcher_ha_rpc_handling_duration_seconds_count',
                 method='trigger_audit') >= 1
