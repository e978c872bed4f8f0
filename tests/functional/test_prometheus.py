"""A real Prometheus (Debian's ``prometheus`` package) scrapes the
simulator's ``/metrics`` on loopback, and the PromQL that OpenStack
Watcher's Prometheus datasource sends returns the usage the scenario's
loads imply.

The queries are those of watcher's
``decision_engine/datasources/prometheus_base.py``
(``_build_prometheus_query``) for the ``mean`` aggregate (``avg``), the
default host label ``fqdn`` and the default instance label ``resource``.
Watcher also finds a host's ``fqdn`` value through the *targets* API
(``_build_prometheus_fqdn_labels``), not through the series, so each host
has to be a scrape target carrying ``fqdn`` (prometheus_server.py sets
Prometheus up so).
"""

import pytest
import requests

from tests.functional import prometheus_server
from tests.functional.prometheus_server import EXPECTED_HOSTS
from tests.functional.prometheus_server import EXPECTED_SERVERS
from tests.functional.prometheus_server import only
from tests.functional.prometheus_server import PERIOD

HOST_CPU = ("100 - (avg by (fqdn)(rate(node_cpu_seconds_total"
            "{mode='idle',fqdn='%(host)s'}[%(period)ss])) * 100)")
HOST_RAM_KB = ("(node_memory_MemTotal_bytes{fqdn='%(host)s'} "
               "- avg_over_time(node_memory_MemAvailable_bytes"
               "{fqdn='%(host)s'}[%(period)ss])) / 1024")
INSTANCE_CPU = ("clamp_max((avg by (resource)(rate(ceilometer_cpu"
                "{resource='%(uuid)s'}[%(period)ss]))/10e+8) "
                "*(100/%(vcpus)s), 100)")
INSTANCE_RAM_MB = ("avg_over_time(ceilometer_memory_usage"
                   "{resource='%(uuid)s'}[%(period)ss])")

# The simulator integrates its counters at the instant it answers a
# scrape, Prometheus stamps the sample with the instant the scrape began:
# a rate over PERIOD s is off by (lag at the window's end - lag at its
# start) / PERIOD. 3 % allows 0.3 s of difference between two scrapes'
# lags on a loaded machine, and is far below what any mistake in the
# model would give (vcpus vs host, idle vs busy: factors of 2 or more).
CPU_TOLERANCE = 0.03
# Memory is a gauge: the query returns the simulator's float exactly.
RAM_TOLERANCE = 1e-9


def test_watcher_queries_on_a_real_prometheus(tmp_path):
    with prometheus_server.scraped_simulator(tmp_path) as (_, url):
        # What Watcher resolves host names with: the targets' fqdn.
        targets = requests.get(url + '/api/v1/targets',
                               params={'state': 'active'}, timeout=5
                               ).json()['data']['activeTargets']
        assert {t['health'] for t in targets} == {'up'}
        assert {t['labels'].get('fqdn') for t in targets} == set(
            EXPECTED_HOSTS) | {None}

        for host, expected in EXPECTED_HOSTS.items():
            args = {'host': host, 'period': PERIOD}
            assert only(url, HOST_CPU % args) == pytest.approx(
                expected['cpu'], rel=CPU_TOLERANCE), host
            assert only(url, HOST_RAM_KB % args) == pytest.approx(
                expected['ram_kb'], rel=RAM_TOLERANCE), host
        for uuid, (vcpus, cpu, ram_mb) in EXPECTED_SERVERS.items():
            args = {'uuid': uuid, 'vcpus': vcpus, 'period': PERIOD}
            assert only(url, INSTANCE_CPU % args) == pytest.approx(
                cpu, rel=CPU_TOLERANCE), uuid
            assert only(url, INSTANCE_RAM_MB % args) == pytest.approx(
                ram_mb, rel=RAM_TOLERANCE), uuid
