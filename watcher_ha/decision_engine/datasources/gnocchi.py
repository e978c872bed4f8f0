"""The ``gnocchi`` datasource: Watcher's metric map for Gnocchi, read
through Keystone from the ``metric`` service of the catalog, as
``[gnocchi_client]`` says.

Watcher asks Gnocchi once per resource (a resource search for a host,
then its measures). Here one ``POST /v1/aggregates`` searches all the
resources asked and returns each one's measures of the metric
(``details=true`` names each resource's ``original_resource_id``), in
chunks of CHUNK resources. Values are Watcher's: the last measure of the
window at the granularity asked; host resources are ceilometer's
``<host>_<host>``; airflow times 10; instance_cpu_usage from the rate of
the cumulative ``cpu`` time (so only as a mean, as in Watcher), in
percent of the server's vcpus.
"""

import datetime

from oslo_log import log

from watcher_ha.decision_engine.datasources import base
from watcher_ha.decision_engine.datasources import keystone
from watcher_ha.decision_engine.datasources import metric_map
from watcher_ha.decision_engine.datasources import retry

LOG = log.getLogger(__name__)

SERVICE_TYPE = 'metric'
DEFAULT_METRIC_MAP = {
    'host_cpu_usage': 'compute.node.cpu.percent',
    'host_ram_usage': 'hardware.memory.used',
    'host_outlet_temp': 'hardware.ipmi.node.outlet_temperature',
    'host_inlet_temp': 'hardware.ipmi.node.temperature',
    'host_airflow': 'hardware.ipmi.node.airflow',
    'host_power': 'hardware.ipmi.node.power',
    'instance_cpu_usage': 'cpu',
    'instance_ram_usage': 'memory.resident',
    'instance_ram_allocated': 'memory',
    'instance_l3_cache_usage': 'cpu_l3_cache',
    'instance_root_disk_size': 'disk.root.size',
}
# Resources searched in one request.
CHUNK = 500
REQUEST_TIMEOUT = 60


def host_resource_id(hostname):
    """The original_resource_id ceilometer gives a compute node."""
    return '%s_%s' % (hostname, hostname)


class GnocchiDatasource(base.Datasource):
    name = 'gnocchi'

    def __init__(self, conf):
        self.conf = conf
        self.metric_map = metric_map.for_datasource(conf, self.name,
                                                    DEFAULT_METRIC_MAP)
        self._adapter = keystone.LazyAdapter(conf, SERVICE_TYPE,
                                             'gnocchi_client', 'endpoint_type')

    def _keystone(self):
        return self._adapter.get()

    def _path(self, name):
        return '/v%s/%s' % (self.conf.gnocchi_client.api_version, name)

    def _call(self, method, path, **kwargs):
        """The decoded answer, or None for a 404."""
        what = '%s %s%s' % (method, keystone.endpoint(
            self._keystone(), SERVICE_TYPE), path)

        def attempt():
            reply = keystone.request(self._keystone(), method, path,
                                     timeout=REQUEST_TIMEOUT, **kwargs)
            if retry.transient_status(reply.status_code):
                raise retry.Transient('HTTP %d: %s' % (
                    reply.status_code, reply.text[:500]))
            if reply.status_code == 404:
                return None
            if reply.status_code != 200:
                raise base.DatasourceError('%s failed: HTTP %d: %s' % (
                    what, reply.status_code, reply.text[:500]))
            try:
                return reply.json()
            except ValueError as err:
                raise base.DatasourceError('%s answered no JSON: %s'
                                           % (what, err)) from err

        return retry.call(self.conf, what, attempt)

    def check_available(self):
        if self._call('GET', self._path('status')) is None:
            raise base.DatasourceError('%s has no status' % self.name)

    def statistics(self, metric, resources, period, aggregate,
                   granularity):
        name = self.query_of(metric)
        resources = list(resources)
        if not resources:
            return {}
        aggregation = 'mean' if aggregate == 'count' else aggregate
        if metric == 'instance_cpu_usage':
            if aggregation != 'mean':
                raise base.DatasourceError(
                    'gnocchi gives instance_cpu_usage as a mean only (from '
                    'the rate of cpu), not as %s' % aggregate)
            aggregation = 'rate:mean'
        if metric in base.HOST_METRICS:
            attribute = 'original_resource_id'
            keys = {host_resource_id(node.hostname): node.hostname
                    for node in resources}
        else:
            attribute = 'id'
            keys = {server.uuid: server.uuid for server in resources}
        stop = datetime.datetime.now(datetime.timezone.utc)
        params = {'details': 'true', 'granularity': granularity,
                  'start': (stop - datetime.timedelta(
                      seconds=int(period))).isoformat(),
                  'stop': stop.isoformat()}
        values = {}
        ids = sorted(keys)
        for start in range(0, len(ids), CHUNK):
            body = {'resource_type': 'generic',
                    'search': {'in': {attribute: ids[start:start + CHUNK]}},
                    'operations': ['metric', name, aggregation]}
            answer = self._call('POST', self._path('aggregates'),
                                params=params, json=body)
            values.update(self._last_measures(answer, name, aggregation,
                                              attribute, keys))
        if not values:
            raise base.DatasourceError(
                'gnocchi has no %s (%s) measure at granularity %s in the '
                'last %s s for any of the %d resources asked'
                % (metric, name, granularity, period, len(resources)))
        return self._in_watcher_units(metric, values, resources,
                                      granularity)

    @staticmethod
    def _last_measures(answer, name, aggregation, attribute, keys):
        """{resource key: last value} of an aggregates answer."""
        if not answer:
            return {}
        by_id = {str(ref.get('id')): ref.get(attribute)
                 for ref in answer.get('references') or ()}
        found = {}
        for resource_id, metrics in (answer.get('measures') or {}).items():
            key = keys.get(by_id.get(resource_id, resource_id))
            measures = (metrics.get(name) or {}).get(aggregation) or []
            if key is not None and measures:
                # [timestamp, granularity, value], oldest first.
                found[key] = float(measures[-1][2])
        return found

    @staticmethod
    def _in_watcher_units(metric, values, resources, granularity):
        if metric == 'host_airflow':
            # As Watcher, which takes Gnocchi's airflow meter for a
            # tenth of the value its strategies compare.
            return {key: value * 10 for key, value in values.items()}
        if metric == 'instance_cpu_usage':
            # ns of CPU time per granularity -> percent of the vcpus; a
            # migrated server's counter restarts, giving a negative rate.
            vcpus = {server.uuid: server.vcpus or 1 for server in resources}
            return {uuid: max(0.0, value) * 100 / (granularity * 1e9)
                    / vcpus[uuid] for uuid, value in values.items()}
        return values
