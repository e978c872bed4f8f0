"""Metrics in Prometheus exposition format (``/metrics``), with the series
Watcher's Prometheus datasource reads: node_exporter's
``node_cpu_seconds_total`` and ``node_memory_*`` per host (labels
``instance`` = host:9100 and ``fqdn`` = host), ceilometer's
``ceilometer_cpu`` (cumulative ns) and ``ceilometer_memory_usage`` (MB) per
server (label ``resource``); and for the metrics Watcher's Prometheus
datasource does not map, the series watcher_ha's reads by default:
ipmi_exporter's ``ipmi_temperature_celsius`` (sensors ``Inlet Temp`` and
``Exhaust Temp``), ``ipmi_sensor_value`` (``System Airflow``, CFM) and
``ipmi_dcmi_power_consumption_watts`` per host, and ceilometer's
``ceilometer_cpu_l3_cache`` (bytes) per server.

Each server's CPU load follows its scenario profile: ``steady`` (its
``cpu`` share), ``diurnal`` (a 24 h sine around it) or ``spiky`` (short
bursts at minutes chosen by its seed); counters integrate the load
between two scrapes, so rates are what the profiles say. A host's sensors
and a server's L3 cache follow the CPU load (host_sensors, l3_cache).
"""

import math
import random
import threading

from prometheus_client import core
from prometheus_client import exposition

DAY = 86400.0
PORT = 9100
IPMI_PORT = 9290
MIB = 2 ** 20
# L3 cache a server's busy vcpu would fill, and what a host has per vcpu:
# a host whose servers are busy enough shares it out, and a server then
# gets less than it wants (noisy neighbours).
L3_WANTED_PER_VCPU = 2 * MIB
L3_PER_HOST_VCPU = MIB


def cpu_share(load, now):
    """The fraction of its vcpus a server uses at ``now``."""
    base = float(load.get('cpu', 0.3))
    profile = load.get('profile', 'steady')
    if profile == 'diurnal':
        base *= 1 + 0.5 * math.sin(2 * math.pi * (now % DAY) / DAY)
    elif profile == 'spiky':
        minute = int(now // 60)
        if random.Random('%s-%d' % (load.get('seed', 0), minute)).random() \
                < 0.1:
            base = max(base, 0.95)
    return max(0.0, min(1.0, base))


def host_sensors(load):
    """What a host's BMC reads at ``load`` (its busy share of vcpus, 0
    to 1). Each crosses the default threshold of a Watcher strategy
    within the range: outlet 35 C (outlet_temperature) at 29 %, airflow
    400 tenths of CFM (uniform_airflow) at 43 %, power 350 W at 77 %,
    inlet 28 C at 80 %."""
    return {'inlet_temp': 20.0 + 10.0 * load,
            'outlet_temp': 25.0 + 35.0 * load,
            'airflow_cfm': 25.0 + 35.0 * load,
            'power_w': 120.0 + 300.0 * load}


def l3_cache(wanted, host_vcpus):
    """{server: bytes of L3 cache held} from {server: bytes wanted} of
    one host's servers: what they want, shared out in proportion when
    they want more than the host has."""
    capacity = L3_PER_HOST_VCPU * host_vcpus
    total = sum(wanted.values())
    scale = 1.0 if total <= capacity else capacity / total
    return {key: value * scale for key, value in wanted.items()}


class _Counters:
    """Integrates per-key rates between scrapes."""

    def __init__(self):
        self._lock = threading.Lock()
        self._values = {}
        self._last = None

    def advance(self, rates, now):
        with self._lock:
            elapsed = 0.0 if self._last is None else now - self._last
            self._last = now
            for key, rate in rates.items():
                self._values[key] = self._values.get(key, 0.0) + \
                    rate * elapsed
            return dict(self._values)


class _Collector:

    def __init__(self, simulator):
        self.sim = simulator
        self.counters = _Counters()

    def collect(self):
        now = self.sim.clock.time()
        cloud = self.sim.cloud
        rates = {}
        memory_used = {}
        l3_wanted = {}
        with cloud.lock:
            hosts = list(cloud.hosts.values())
            servers = [s for s in cloud.servers.values() if s.host]
            for server in servers:
                running = server.vm_state == 'active'
                share = cpu_share(server.load, now) if running else 0.0
                busy = share * server.flavor.vcpus
                rates[('server', server.uuid)] = busy * 1e9
                rates[('host-busy', server.host)] = rates.get(
                    ('host-busy', server.host), 0.0) + busy
                memory_used[server.uuid] = (server.flavor.ram * (
                    0.3 + 0.6 * share) if running else 0.0)
                l3_wanted.setdefault(server.host, {})[server.uuid] = (
                    L3_WANTED_PER_VCPU * busy)
            for host in hosts:
                busy = min(rates.get(('host-busy', host.name), 0.0),
                           host.vcpus)
                rates[('idle', host.name)] = host.vcpus - busy
                rates[('user', host.name)] = busy
        totals = self.counters.advance(rates, now)
        cpu = core.CounterMetricFamily(
            'node_cpu_seconds_total', 'Seconds the CPUs spent in each mode.',
            labels=['instance', 'fqdn', 'cpu', 'mode'])
        mem_total = core.GaugeMetricFamily(
            'node_memory_MemTotal_bytes', 'Memory total in bytes.',
            labels=['instance', 'fqdn'])
        mem_free = core.GaugeMetricFamily(
            'node_memory_MemAvailable_bytes', 'Memory available in bytes.',
            labels=['instance', 'fqdn'])
        used_by_host = {}
        for server in servers:
            used_by_host[server.host] = used_by_host.get(server.host, 0.0) \
                + memory_used.get(server.uuid, 0.0)
        temperature = core.GaugeMetricFamily(
            'ipmi_temperature_celsius', 'Temperature sensors, in C.',
            labels=['instance', 'fqdn', 'id', 'name'])
        sensor = core.GaugeMetricFamily(
            'ipmi_sensor_value', 'Other sensors, in their own unit.',
            labels=['instance', 'fqdn', 'id', 'name', 'type'])
        power = core.GaugeMetricFamily(
            'ipmi_dcmi_power_consumption_watts', 'Power drawn, in W.',
            labels=['instance', 'fqdn'])
        l3_held = {}
        for host in hosts:
            l3_held.update(l3_cache(l3_wanted.get(host.name, {}),
                                    host.vcpus))
            if host.state != 'up' and not host.reporting:
                continue
            ipmi = ['%s:%d' % (host.name, IPMI_PORT), host.name]
            sensors = host_sensors(rates.get(('user', host.name), 0.0)
                                   / max(host.vcpus, 1))
            temperature.add_metric(ipmi + ['1', 'Inlet Temp'],
                                   sensors['inlet_temp'])
            temperature.add_metric(ipmi + ['2', 'Exhaust Temp'],
                                   sensors['outlet_temp'])
            sensor.add_metric(ipmi + ['3', 'System Airflow',
                                      'Other Units Based Sensor'],
                              sensors['airflow_cfm'])
            power.add_metric(ipmi, sensors['power_w'])
            labels = ['%s:%d' % (host.name, PORT), host.name]
            # One CPU line per mode, carrying the whole host: the rate of
            # the idle counter over vcpus is the idle fraction.
            for mode in ('idle', 'user'):
                cpu.add_metric(labels + ['0', mode],
                               totals.get((mode, host.name), 0.0)
                               / max(host.vcpus, 1))
            total = host.memory_mb * 2 ** 20
            mem_total.add_metric(labels, total)
            mem_free.add_metric(labels, max(
                0.0, total - used_by_host.get(host.name, 0.0) * 2 ** 20))
        # A gauge holding a cumulative value, under ceilometer's exact
        # name (a counter family would add "_total").
        server_cpu = core.GaugeMetricFamily(
            'ceilometer_cpu', 'CPU time used by the server, in ns.',
            labels=['resource', 'project', 'vcpus'])
        server_mem = core.GaugeMetricFamily(
            'ceilometer_memory_usage', 'Memory used by the server, in MB.',
            labels=['resource', 'project'])
        server_l3 = core.GaugeMetricFamily(
            'ceilometer_cpu_l3_cache', 'L3 cache held by the server, in B.',
            labels=['resource', 'project'])
        for server in servers:
            server_l3.add_metric([server.uuid, server.tenant_id],
                                 l3_held.get(server.uuid, 0.0))
            server_cpu.add_metric(
                [server.uuid, server.tenant_id, str(server.flavor.vcpus)],
                totals.get(('server', server.uuid), 0.0))
            server_mem.add_metric([server.uuid, server.tenant_id],
                                  memory_used.get(server.uuid, 0.0))
        return [cpu, mem_total, mem_free, server_cpu, server_mem,
                temperature, sensor, power, server_l3]


class MetricsApp:
    """GET /metrics."""

    def __init__(self, simulator):
        self.registry = core.CollectorRegistry(auto_describe=False)
        self.registry.register(_Collector(simulator))

    def __call__(self, environ, start_response):
        body = exposition.generate_latest(self.registry)
        start_response('200 OK', [
            ('Content-Type', exposition.CONTENT_TYPE_LATEST),
            ('Content-Length', str(len(body)))])
        return [body]
