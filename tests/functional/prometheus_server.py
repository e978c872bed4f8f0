"""A real Prometheus (Debian's ``prometheus`` package) scraping the
simulator on loopback, and the scenario the Prometheus tests share.

Watcher finds a host's ``fqdn`` value through the *targets* API, not
through the series, so each host has to be a scrape target carrying
``fqdn``, as when node_exporter and ipmi_exporter run for every compute
host. The simulator serves every host from one ``/metrics``: the
configuration (scrape_config) has one job per host that keeps that host's
``node_*`` and ``ipmi_*`` series, plus one job for ``ceilometer_*``.
"""

import contextlib
import re
import shutil
import subprocess
import time

import requests
import yaml

from tests import servers
from tests.functional import fixtures
from tests.functional.cloud import simulator
from tools import children
from watcher_ha.simulator import scenario

# Watcher's ``period`` (seconds), short so that the test is quick. The
# rate() of a window is only right once samples older than the window
# exist (before that Prometheus cannot extrapolate to the window's start
# and divides a partial increase by the whole window), hence SAMPLES.
PERIOD = 10
SCRAPE_INTERVAL = 1
SAMPLES = PERIOD + 3

# Steady loads, so that the usage is the same at every instant. Flavors
# are scenario.FLAVORS: m1.small 1 vcpu / 2048 MB, m1.medium 2 / 4096,
# m1.large 4 / 8192. A running server uses ``cpu`` of its vcpus and
# ram * (0.3 + 0.6 * cpu) MB; a stopped one nothing.
SPEC = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'hosts': [
        {'name': 'compute-a', 'vcpus': 8, 'memory_mb': 16384,
         'disk_gb': 400},
        {'name': 'compute-b', 'vcpus': 4, 'memory_mb': 8192,
         'disk_gb': 400},
    ],
    'servers': [
        {'name': 'vm-a1', 'uuid': '0a000000-0000-4000-8000-000000000001',
         'flavor': 'm1.large', 'host': 'compute-a',
         'load': {'profile': 'steady', 'cpu': 0.5}},
        {'name': 'vm-a2', 'uuid': '0a000000-0000-4000-8000-000000000002',
         'flavor': 'm1.medium', 'host': 'compute-a',
         'load': {'profile': 'steady', 'cpu': 0.25}},
        {'name': 'vm-b1', 'uuid': '0b000000-0000-4000-8000-000000000001',
         'flavor': 'm1.small', 'host': 'compute-b',
         'load': {'profile': 'steady', 'cpu': 0.8}},
        {'name': 'vm-b2', 'uuid': '0b000000-0000-4000-8000-000000000002',
         'flavor': 'm1.medium', 'host': 'compute-b', 'state': 'stopped',
         'load': {'profile': 'steady', 'cpu': 0.9}},
    ],
}
# compute-a: (4 * 0.5 + 2 * 0.25) / 8 vcpus busy; 8192 * 0.6 + 4096 * 0.45
# MB used. compute-b: 1 * 0.8 / 4 busy (vm-b2 is stopped); 2048 * 0.78 MB.
EXPECTED_HOSTS = {
    'compute-a': {'cpu': 31.25, 'ram_kb': (4915.2 + 1843.2) * 1024},
    'compute-b': {'cpu': 20.0, 'ram_kb': 1597.44 * 1024},
}
# uuid: (vcpus, cpu percent, ram MB)
EXPECTED_SERVERS = {
    '0a000000-0000-4000-8000-000000000001': (4, 50.0, 4915.2),
    '0a000000-0000-4000-8000-000000000002': (2, 25.0, 1843.2),
    '0b000000-0000-4000-8000-000000000001': (1, 80.0, 1597.44),
    '0b000000-0000-4000-8000-000000000002': (2, 0.0, 0.0),
}

def prometheus_binary():
    binary = shutil.which('prometheus')
    if binary is None:
        servers.unavailable('prometheus', 'no prometheus executable on '
                            'PATH')
    return binary


def scrape_config(sim_port, hosts):
    target = ['127.0.0.1:%d' % sim_port]
    jobs = [{
        'job_name': 'node-%s' % host, 'metrics_path': '/metrics',
        'honor_labels': True,
        'static_configs': [{'targets': target, 'labels': {'fqdn': host}}],
        'metric_relabel_configs': [{
            'source_labels': ['__name__', 'fqdn'], 'action': 'keep',
            'regex': '(node|ipmi)_.+;%s' % re.escape(host)}],
    } for host in hosts]
    jobs.append({
        'job_name': 'ceilometer', 'metrics_path': '/metrics',
        'honor_labels': True, 'static_configs': [{'targets': target}],
        'metric_relabel_configs': [{
            'source_labels': ['__name__'], 'action': 'keep',
            'regex': 'ceilometer_.+'}],
    })
    interval = '%ds' % SCRAPE_INTERVAL
    return {'global': {'scrape_interval': interval,
                       'scrape_timeout': interval},
            'scrape_configs': jobs}


@contextlib.contextmanager
def prometheus(tmp_path, config):
    binary = prometheus_binary()
    config_file = tmp_path / 'prometheus.yml'
    config_file.write_text(yaml.safe_dump(config))
    port = fixtures.free_port()
    log = tmp_path / 'prometheus.out'
    with open(log, 'w') as out:
        proc = children.popen(
            [binary, '--config.file=%s' % config_file,
             '--storage.tsdb.path=%s' % (tmp_path / 'tsdb'),
             '--web.listen-address=127.0.0.1:%d' % port],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = 'http://127.0.0.1:%d' % port
    try:
        fixtures.wait_answering(proc, url + '/-/ready', log, 20,
                                'prometheus')
        yield url
    finally:
        fixtures.stop(proc)


def query(url, promql):
    reply = requests.get(url + '/api/v1/query', params={'query': promql},
                         timeout=5)
    assert reply.status_code == 200, reply.text
    return [float(item['value'][1])
            for item in reply.json()['data']['result']]


def only(url, promql):
    values = query(url, promql)
    assert len(values) == 1, (promql, values)
    return values[0]


def wait_for_samples(url, series):
    """Wait until ``series`` series have SAMPLES samples each."""
    promql = ('count_over_time({__name__=~"node_cpu_seconds_total|'
              'ceilometer_cpu"}[1m]) >= %d' % SAMPLES)
    deadline = time.monotonic() + SAMPLES * SCRAPE_INTERVAL + 15
    while len(query(url, promql)) < series:
        assert time.monotonic() < deadline, 'too few samples: %s' % query(
            url, promql.rsplit('>=', 1)[0])
        time.sleep(0.5)


@contextlib.contextmanager
def scraped_simulator(tmp_path, spec=SPEC):
    """The simulator running ``spec`` and a Prometheus scraping it, once
    each CPU series has SAMPLES samples: yields (simulator URL,
    Prometheus URL). Both stop when the block ends."""
    prometheus_binary()  # skip or fail before starting the simulator
    hosts = [host['name'] for host in spec['hosts']]
    with simulator(tmp_path / 'simulator', spec) as sim_url, \
            prometheus(tmp_path, scrape_config(
                int(sim_url.rsplit(':', 1)[1]), hosts)) as url:
        # node_cpu_seconds_total: idle and user per host; ceilometer_cpu
        # per server.
        wait_for_samples(url, 2 * len(hosts) + len(spec['servers']))
        yield sim_url, url
