"""Every optimisation strategy end to end: the real daemons (separate
processes on RabbitMQ and MariaDB) audit the simulator, reading its
metrics from a real Prometheus that scrapes it through our ``prometheus``
datasource; the plan is started and applied, and the simulator then shows
what each action said: each server migrated on its destination, each
service in the state asked, each server resized to its flavor.

One cloud serves every metric-based strategy: compute-0000 runs three
busy servers (67.5 % of its vcpus: hot, hotter outlet and more airflow
than the thresholds of Watcher's defaults), the three others one idle
server each (consolidation has hosts to free). Each strategy gets a fresh
cloud, since each plan changes it.
"""

import contextlib
import time

import pytest
import requests

from tests.functional import prometheus_server
from tests.functional import services
from tests.functional.cloud import nova_sections
from tests.helpers.plans import start_and_wait
from tests.functional.cloud import scenario_host
from tests.helpers.plans import audit
from tests.helpers.plans import check_applied
from tests.helpers.plans import aggregate_template
from tests.helpers.plans import finished_audit
from tests.helpers.plans import plan_of
from watcher_ha.decision_engine.strategy import dummy_with_resize
from watcher_ha.simulator import scenario

# Prometheus holds only seconds of samples here: each strategy reads
# them over a window it has (prometheus_server.PERIOD), not Watcher's
# default hours, or rate() would divide a few seconds' increase by the
# whole window.
PERIOD = prometheus_server.PERIOD


def _server(name, host, flavor, cpu):
    return {'name': name, 'flavor': flavor, 'host': host,
            'load': {'profile': 'steady', 'cpu': cpu}}


LOADED = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'bandwidth_mb_per_s': 8192,
    'hosts': [scenario_host('compute-%04d' % i) for i in range(4)],
    'servers': [_server('busy-%d' % i, 'compute-0000', 'm1.medium', 0.9)
                for i in range(3)]
    + [_server('idle-%d' % i, 'compute-%04d' % i, 'm1.small', 0.1)
       for i in range(1, 4)],
}

RESIZE = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'bandwidth_mb_per_s': 8192,
    'flavors': scenario.FLAVORS + [
        {'id': '42', 'name': 'x2', 'vcpus': 2, 'ram': 4096, 'disk': 20}],
    'hosts': [scenario_host('compute2'), scenario_host('compute3')],
    'servers': [
        dict(_server('first', 'compute2', 'm1.small', 0.1),
             uuid=dummy_with_resize.FIRST),
        dict(_server('second', 'compute2', 'm1.small', 0.1),
             uuid=dummy_with_resize.SECOND)],
}

NOISY = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'bandwidth_mb_per_s': 8192,
    'hosts': [scenario_host('compute-0000'), scenario_host('compute-0001')],
    'servers': [
        dict(_server('precious', 'compute-0000', 'm1.large', 1.0),
             metadata={'watcher-priority': '1'}),
        dict(_server('noisy', 'compute-0000', 'm1.large', 0.05),
             metadata={'watcher-priority': '9'}),
        _server('other', 'compute-0001', 'm1.small', 0.1)],
}


def noisy_turns_busy(sim_url):
    """The low-priority server starts wanting as much L3 cache as the
    precious one: on their 8-vcpu host they now get half of what they
    want each, the precious one's share falls by about half, the noisy
    one's grows tenfold. The audit comes a window later, so that its
    "now" is all after the change and its "before" mostly before."""
    state = requests.get(sim_url + '/simulator/state', timeout=10).json()
    [noisy] = [u for u, s in state['servers'].items()
               if s['name'] == 'noisy']
    requests.put('%s/simulator/servers/%s/load' % (sim_url, noisy),
                 json={'cpu': 1.0}, timeout=10).raise_for_status()
    time.sleep(PERIOD + 2)


# strategy: (goal, parameters, action types its plan must hold, spec,
# what to do to the cloud before the audit)
CASES = {
    'vm_workload_consolidation': (
        'server_consolidation', {'period': PERIOD},
        {'migrate', 'change_nova_service_state'}, LOADED),
    'basic': (
        'server_consolidation', {'period': PERIOD}, {'migrate'}, LOADED),
    'node_resource_consolidation': (
        'server_consolidation', {}, {'migrate'}, LOADED),
    'workload_balance': (
        'workload_balancing', {'period': PERIOD}, {'migrate'}, LOADED),
    'workload_stabilization': (
        'workload_balancing',
        {'periods': {'instance': PERIOD, 'compute_node': PERIOD,
                     'node': 0}},
        {'migrate'}, LOADED),
    'outlet_temperature': (
        'thermal_optimization', {'period': PERIOD}, {'migrate'}, LOADED),
    'uniform_airflow': (
        'airflow_optimization', {'period': PERIOD}, {'migrate'}, LOADED),
    'actuator': (
        'unclassified',
        {'actions': [{'action_type': 'nop',
                      'input_parameters': {'message': 'end to end'}}]},
        {'nop'}, LOADED),
    'dummy_with_resize': (
        'dummy', {}, {'nop', 'sleep', 'migrate', 'resize'}, RESIZE),
    'noisy_neighbor': (
        'noisy_neighbor', {'period': PERIOD}, {'migrate'}, NOISY,
        noisy_turns_busy),
}


def datasource_sections(prometheus_url):
    host, port = prometheus_url.rsplit('//', 1)[1].split(':')
    return {'watcher_datasources': {'datasources': 'prometheus',
                                    'query_max_retries': 2,
                                    'query_interval': 0},
            'prometheus_client': {'host': host, 'port': port}}


@contextlib.contextmanager
def scraped_cluster(tmp_path, spec, rabbit, kind='mysql'):
    """A database of ``kind``, the simulator playing ``spec`` scraped by
    Prometheus, and a cluster reading both, its daemons started:
    (cluster, simulator URL)."""
    with services.database(kind) as (db_url, _), \
            prometheus_server.scraped_simulator(
                tmp_path, spec) as (sim_url, prometheus_url), \
            services.cluster(tmp_path, db_url, rabbit,
                             **nova_sections(sim_url),
                             **datasource_sections(prometheus_url)
                             ) as cluster:
        cluster.start_daemons(engines=['engine-1'],
                              appliers=['applier-1'])
        yield cluster, sim_url


@pytest.mark.parametrize('strategy', sorted(CASES))
def test_strategy_end_to_end(tmp_path, strategy, own_rabbit):
    goal, parameters, expected, spec, *prepare = CASES[strategy]
    with scraped_cluster(tmp_path, spec, own_rabbit) as (cluster, sim_url):
        for step in prepare:
            step(sim_url)
        finished = audit(cluster, goal, strategy, parameters)
        assert finished['state'] == 'SUCCEEDED', finished
        plan, actions = plan_of(cluster, finished['uuid'])
        assert expected <= {a['action_type'] for a in actions}, actions
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        check_applied(plan_of(cluster, finished['uuid'])[1], requests.get(
            sim_url + '/simulator/state', timeout=10).json())


def test_without_prometheus_a_metric_audit_fails_and_dummy_runs(
        tmp_path, own_rabbit):
    """Prometheus stopped: an audit that needs a metric fails with a
    message naming the datasource and the metric, and the engine still
    serves an audit that needs none."""
    prometheus_server.prometheus_binary()
    hosts = [host['name'] for host in LOADED['hosts']]
    with services.database('mysql') as (db_url, _), \
            services.simulator(tmp_path / 'sim', LOADED) as sim_url, \
            contextlib.ExitStack() as metrics_up:
        prometheus_url = metrics_up.enter_context(
            prometheus_server.prometheus(
                tmp_path, prometheus_server.scrape_config(
                    int(sim_url.rsplit(':', 1)[1]), hosts)))
        prometheus_server.wait_for_samples(
            prometheus_url, 2 * len(hosts) + len(LOADED['servers']))
        with services.cluster(tmp_path, db_url, own_rabbit,
                              **nova_sections(sim_url),
                              **datasource_sections(prometheus_url)
                              ) as cluster:
            cluster.start_daemons(engines=['engine-1'],
                                  appliers=['applier-1'])
            parameters = {'period': PERIOD}
            assert audit(cluster, 'workload_balancing',
                         'workload_balance', parameters)['state'] == \
                'SUCCEEDED'
            metrics_up.close()
            failed = audit(cluster, 'workload_balancing',
                           'workload_balance', parameters)
            assert failed['state'] == 'FAILED', failed
            assert 'prometheus' in failed['status_message'], failed
            assert 'instance_cpu_usage' in failed['status_message'], \
                failed
            assert audit(cluster, 'dummy', 'dummy', {})['state'] == \
                'SUCCEEDED'


def test_a_scoped_consolidation_moves_nothing_outside_its_aggregate(
        tmp_path, own_rabbit):
    """vm_workload_consolidation scoped to the aggregate rack-a (the hot
    host and one idle one): it empties one of the two, and nothing of
    rack-b moves or changes state, though its idle hosts could be
    freed too."""
    spec = dict(LOADED, hosts=[
        dict(host, aggregates=['rack-a' if index < 2 else 'rack-b'])
        for index, host in enumerate(LOADED['hosts'])])
    with scraped_cluster(tmp_path, spec, own_rabbit,
                         'postgresql') as (cluster, sim_url):
        before = requests.get(sim_url + '/simulator/state',
                              timeout=10).json()
        template = aggregate_template(cluster, 'server_consolidation',
                                      'vm_workload_consolidation', 'rack-a')
        finished = finished_audit(cluster, {
            'audit_template_uuid': template,
            'audit_type': 'ONESHOT', 'parameters': {'period': PERIOD}})
        assert finished['state'] == 'SUCCEEDED', finished
        plan, actions = plan_of(cluster, finished['uuid'])
        rack_a = {'compute-0000', 'compute-0001'}
        assert actions
        for action in actions:
            parameters = action['input_parameters']
            hosts = ({parameters['source_node'],
                      parameters['destination_node']}
                     if action['action_type'] == 'migrate'
                     else {parameters['resource_name']})
            assert hosts <= rack_a, action
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        after = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        check_applied(plan_of(cluster, finished['uuid'])[1], after)
        for name in ('compute-0002', 'compute-0003'):
            assert after['hosts'][name]['status'] == \
                before['hosts'][name]['status']
        assert {u: s['host'] for u, s in after['servers'].items()
                if before['servers'][u]['host'] not in rack_a} == {
            u: s['host'] for u, s in before['servers'].items()
            if s['host'] not in rack_a}
