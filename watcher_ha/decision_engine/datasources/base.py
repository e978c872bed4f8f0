"""What a datasource plugin (namespace ``watcher_ha.datasources``) answers.

A datasource reads one metric for many resources in one query: a
strategy asks for the CPU usage of every node of the cloud, and the
datasource answers it with one request, not one per node. Metrics are
named as Watcher names them; each datasource maps the names to its own
series (its ``metric_map``, which an operator's metric map file
overrides).

Values are in Watcher's units: CPU usage in percent (of the host's or
the server's vcpus), host RAM usage in KiB, server RAM in MB, disk in
GB, temperatures in degrees Celsius, airflow in 0.1 CFM, power in W,
L3 cache in bytes (ceilometer's cpu_l3_cache, which Watcher passes on
as it is).
"""

HOST_METRICS = frozenset((
    'host_cpu_usage', 'host_ram_usage', 'host_outlet_temp',
    'host_inlet_temp', 'host_airflow', 'host_power'))
INSTANCE_METRICS = frozenset((
    'instance_cpu_usage', 'instance_ram_usage', 'instance_ram_allocated',
    'instance_l3_cache_usage', 'instance_root_disk_size'))
METRICS = HOST_METRICS | INSTANCE_METRICS
AGGREGATES = ('mean', 'min', 'max', 'count')


class DatasourceError(Exception):
    """The datasource could not answer (unreachable, refused, bad
    answer); the message says what it got."""


class Datasource:
    """One source of metrics, built once per decision engine.

    ``name`` is the plugin's name in ``[watcher_datasources]
    datasources``; ``metric_map`` is {metric: the datasource's own query
    or series name}; a metric missing from it is one this datasource
    cannot give.
    """
    name: str
    metric_map: dict = {}

    def supports(self, metric):
        return self.metric_map.get(metric) is not None

    def query_of(self, metric):
        """What this datasource asks for ``metric`` (its ``metric_map``
        entry); DatasourceError if it cannot give it."""
        query = self.metric_map.get(metric)
        if query is None:
            raise DatasourceError('%s does not provide %s'
                                  % (self.name, metric))
        return query

    def statistics(self, metric, resources, period, aggregate,
                   granularity):
        """{key: value} of ``metric`` over the last ``period`` seconds,
        aggregated with ``aggregate`` (one of AGGREGATES) at
        ``granularity`` seconds, for ``resources``: ComputeNode elements
        for host metrics (keyed by hostname) or Instance elements for
        instance metrics (keyed by uuid). A resource the datasource has
        no data for is left out. Raises DatasourceError if it cannot
        answer at all; the built-in datasources also raise it when they
        have a value for none of the resources (the metric is not
        collected there), so that the next datasource listed answers."""
        raise NotImplementedError

    def check_available(self):
        """Raise DatasourceError if the datasource cannot be reached."""
