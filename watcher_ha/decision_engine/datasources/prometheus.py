"""The ``prometheus`` datasource: Watcher 17's PromQL (promql.py) over
Prometheus's HTTP API, one query per metric for all the resources asked
(``POST /api/v1/query``), as ``[prometheus_client]`` says.

What an operator's Prometheus needs, as for Watcher:

- every compute host's exporters (node_exporter; ipmi_exporter for the
  thermal, airflow and power metrics) are scrape targets carrying the
  host's name in the ``fqdn_label`` label (``fqdn`` by default). A host
  is found in the targets API (``GET /api/v1/targets?state=active``)
  either under its hostname or under a dotted name whose first part is
  its hostname (``compute1`` -> ``compute1.example.com``), and its series
  are matched with that label. The targets are read at the first host
  query and read again when a host is not among them (a new host), at
  most every TARGETS_REFRESH seconds;
- ceilometer's series (``ceilometer_cpu``, ``ceilometer_memory_usage``)
  carry the server's UUID in ``instance_uuid_label`` (``resource``).

A query that answers nothing at all for the resources asked counts as
the datasource not having the metric: the metric goes to the next
datasource listed, and the audit fails if none has it, rather than a
strategy planning on no data.
"""

import math
import threading
import time

from oslo_log import log
import requests

from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import metric_map
from watcher_ha.decision_engine.datasources import promql
from watcher_ha.decision_engine.datasources import retry

LOG = log.getLogger(__name__)

# Watcher's series for what it maps (instance.memory and instance.disk
# are not series: Watcher reads them from the data model, as here), and
# series of node_exporter, ipmi_exporter and ceilometer for what it does
# not map. The temperature sensor names are Dell iDRAC's; other BMCs
# name them otherwise, hence the metric map file.
DEFAULT_METRIC_MAP = {
    'host_cpu_usage': 'node_cpu_seconds_total',
    'host_ram_usage': 'node_memory_MemAvailable_bytes',
    'host_outlet_temp': 'ipmi_temperature_celsius{name="Exhaust Temp"}',
    'host_inlet_temp': 'ipmi_temperature_celsius{name="Inlet Temp"}',
    'host_airflow': 'ipmi_sensor_value{name="System Airflow"}',
    'host_power': 'ipmi_dcmi_power_consumption_watts',
    'instance_cpu_usage': 'ceilometer_cpu',
    'instance_ram_usage': 'ceilometer_memory_usage',
    'instance_ram_allocated': 'instance.memory',
    'instance_l3_cache_usage': 'ceilometer_cpu_l3_cache',
    'instance_root_disk_size': 'instance.disk',
}
# Entries answered from the Instance element instead of a query.
FROM_MODEL = {'instance.memory': 'memory_mb', 'instance.disk': 'disk_gb'}

# Seconds one HTTP request may take (Prometheus's own query timeout is
# 2 minutes; a query over a whole cloud takes well under one).
REQUEST_TIMEOUT = 60
# Least seconds between two reads of the targets for an unknown host.
TARGETS_REFRESH = 30


class PrometheusDatasource(base.Datasource):
    name = 'prometheus'
    # The option group with fqdn_label and instance_uuid_label.
    group = 'prometheus_client'

    def __init__(self, conf):
        self.conf = conf
        options = conf[self.group]
        self.fqdn_label = options.fqdn_label
        self.uuid_label = options.instance_uuid_label
        self.metric_map = metric_map.for_datasource(conf, self.name,
                                                    DEFAULT_METRIC_MAP)
        for metric, entry in self.metric_map.items():
            if entry is not None and entry not in FROM_MODEL:
                try:
                    promql.parse_selector(entry)
                except ValueError as err:
                    raise metric_map.MetricMapError(
                        '%s: %s: %s' % (self.name, metric, err)) from err
        self._check_options()
        self._session = None
        self._lock = threading.Lock()
        # fqdn label values of the active targets, and when read.
        self._targets = None
        self._targets_read = 0.0

    # -- transport: overridden by the aetos datasource --------------------

    def _check_options(self):
        if not self.conf.prometheus_client.host:
            raise base.DatasourceError(
                'the prometheus datasource is listed in [watcher_datasources]'
                ' datasources but [prometheus_client] host is not set')

    def _location(self):
        options = self.conf.prometheus_client
        host = options.host
        if ':' in host and not host.startswith('['):
            host = '[%s]' % host
        # As Watcher: HTTPS when a CA is given, else plain HTTP.
        scheme = 'https' if options.cafile else 'http'
        return '%s://%s:%d' % (scheme, host, options.port)

    def _http(self):
        with self._lock:
            if self._session is None:
                options = self.conf.prometheus_client
                session = requests.Session()
                if options.cafile:
                    session.verify = options.cafile
                    if options.certfile and options.keyfile:
                        session.cert = (options.certfile, options.keyfile)
                if options.username and options.password:
                    session.auth = (options.username, options.password)
                self._session = session
            return self._session

    def _send(self, method, path, **kwargs):
        return self._http().request(method, self._location() + path,
                                    timeout=REQUEST_TIMEOUT, **kwargs)

    # -- the API ------------------------------------------------------------

    def _api(self, method, path, **kwargs):
        """The ``data`` of a Prometheus API answer."""
        what = '%s %s%s' % (method, self._location(), path)

        def attempt():
            reply = self._send(method, path, **kwargs)
            if retry.transient_status(reply.status_code):
                raise retry.Transient('HTTP %d: %s' % (
                    reply.status_code, reply.text[:500]))
            try:
                body = reply.json()
            except ValueError:
                body = {}
            if reply.status_code != 200 or body.get('status') != 'success':
                raise base.DatasourceError('%s failed: HTTP %d: %s' % (
                    what, reply.status_code,
                    body.get('error') or reply.text[:500]))
            return body.get('data')

        return retry.call(self.conf, what, attempt)

    def _query(self, text):
        data = self._api('POST', '/api/v1/query', data={'query': text})
        if not isinstance(data, dict) or data.get('resultType') != 'vector':
            raise base.DatasourceError(
                'query %s answered %r where a vector was expected'
                % (text, data))
        return data['result']

    def check_available(self):
        self._api('GET', '/api/v1/status/runtimeinfo')

    # -- hosts ---------------------------------------------------------------

    def _read_targets(self):
        data = self._api('GET', '/api/v1/targets',
                         params={'state': 'active'})
        values = {target.get('labels', {}).get(self.fqdn_label)
                  for target in (data or {}).get('activeTargets', ())}
        values.discard(None)
        values.discard('')
        self._targets, self._targets_read = values, time.monotonic()
        return values

    def _resolve(self, hostnames, labels):
        """{label value: [hostnames]} of the hosts found in ``labels``."""
        short = {value.split('.')[0]: value for value in labels
                 if '.' in value}
        found = {}
        for hostname in hostnames:
            value = hostname if hostname in labels else short.get(hostname)
            if value is not None:
                found.setdefault(value, []).append(hostname)
        return found

    def _host_keys(self, hostnames):
        labels = self._targets
        if labels is None:
            labels = self._read_targets()
        found = self._resolve(hostnames, labels)
        if (sum(map(len, found.values())) < len(hostnames)
                and time.monotonic() - self._targets_read
                >= TARGETS_REFRESH):
            found = self._resolve(hostnames, self._read_targets())
        missing = set(hostnames).difference(*found.values())
        if missing:
            LOG.warning('%s: no active scrape target has %s set to the '
                        'name of host(s) %s', self.name, self.fqdn_label,
                        ', '.join(sorted(missing)))
        return found

    # -- statistics ------------------------------------------------------

    def statistics(self, metric, resources, period, aggregate,
                   granularity):
        series = self.query_of(metric)
        resources = list(resources)
        if not resources:
            return {}
        if series in FROM_MODEL:
            return {server.uuid: float(getattr(server, FROM_MODEL[series]))
                    for server in resources}
        if aggregate == 'count':
            LOG.debug('%s: count is read as mean, as Watcher does',
                      self.name)
        if metric in base.HOST_METRICS:
            label = self.fqdn_label
            keys = self._host_keys([node.hostname for node in resources])
        else:
            label = self.uuid_label
            keys = {server.uuid: [server.uuid] for server in resources}
        values = {}
        queries = []
        for chunk in promql.chunks(keys):
            query = promql.build(metric, series, label, chunk, period,
                                 aggregate)
            queries.append(query.promql)
            for sample in self._query(query.promql):
                key = sample.get('metric', {}).get(query.key_label)
                value = float(sample['value'][1])
                if key not in keys or math.isnan(value):
                    continue
                for resource_key in keys[key]:
                    # Watcher takes the first series when several match.
                    values.setdefault(resource_key, value)
        if not values:
            raise base.DatasourceError(
                'no value of %s for any of the %d %s asked (%s)'
                % (metric, len(resources),
                   'hosts' if metric in base.HOST_METRICS else 'servers',
                   'no host is an active scrape target with %s set'
                   % self.fqdn_label if not queries
                   else 'query: %s' % queries[0]))
        if metric == 'instance_cpu_usage':
            vcpus = {server.uuid: server.vcpus for server in resources}
            values = {uuid: promql.cpu_percent(cores, vcpus[uuid])
                      for uuid, cores in values.items()}
        return values
