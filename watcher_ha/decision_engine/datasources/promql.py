"""The PromQL the ``prometheus`` and ``aetos`` datasources send: Watcher
17's query for each metric it maps (watcher's
``datasources/prometheus_base.py``), asked for many resources at once.

Watcher sends one query per resource, matching it with ``fqdn='host'``
or ``resource='uuid'``; here one query carries a regex matcher over all
of them (``fqdn=~"a|b"``) and the answer is split by that label, which
Watcher's queries already group or keep. Each query's shape is Watcher's,
with two exceptions:

- ``instance_cpu_usage``: Watcher divides by the server's vcpus inside
  the query (``* (100/4)``), so a query could only serve servers of one
  size; the query here stops at the CPU time rate (cores busy) and
  ``cpu_percent`` does Watcher's division and clamp at 100 per server.
- The metrics Watcher's Prometheus datasource does not map (thermal,
  airflow, power, L3 cache) get queries of ours, in the same style:
  ``<aggregate> by (label)(<aggregate>_over_time(series[period]))``.

A metric map entry is a series selector: a name, with label matchers if
the series needs them (``ipmi_temperature_celsius{name="Inlet Temp"}``);
the resource matcher is added to them.
"""

import dataclasses
import re

# Watcher's aggregate names to PromQL's; Watcher sends count as avg too.
AGGREGATES = {'mean': 'avg', 'max': 'max', 'min': 'min', 'count': 'avg'}
# Host CPU and RAM are measured by what is idle or available: the most
# used is the least idle, so Watcher swaps max and min for them.
INVERTED = {'max': 'min', 'min': 'max'}

# Longest regex alternation in one query. Prometheus takes any length
# (queries are POSTed), but each query's answer and the server's regex
# both grow with it; a few hundred KB per query keeps either small while
# 20,000 servers still fit in a handful of queries.
MAX_ALTERNATION = 64 * 1024

_SELECTOR = re.compile(r'^\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*(?:\{(.*)\})?\s*$',
                       re.DOTALL)
_REGEX_SPECIAL = frozenset('\\.+*?()|[]{}^$')


@dataclasses.dataclass(frozen=True)
class Query:
    """One PromQL query and the label its answer is keyed by."""
    promql: str
    key_label: str


def parse_selector(text):
    """(series name, extra label matchers as PromQL text or '') of a
    metric map entry; ValueError if it is not a series selector."""
    match = _SELECTOR.match(text or '')
    if match is None:
        raise ValueError('%r is not a Prometheus series selector (a series '
                         'name, optionally followed by {label matchers})'
                         % text)
    return match.group(1), (match.group(2) or '').strip().rstrip(',')


def selector(series, label, values, extra=''):
    """``series{extra,label=~"v1|v2"}``: ``series`` (a metric map entry)
    restricted to the resources whose ``label`` is one of ``values``."""
    name, own = parse_selector(series)
    matchers = [m for m in (own, extra) if m]
    matchers.append('%s=~%s' % (label, _string(alternation(values))))
    return '%s{%s}' % (name, ','.join(matchers))


def alternation(values):
    """A regex matching exactly ``values`` (Prometheus anchors it)."""
    return '|'.join(''.join('\\' + c if c in _REGEX_SPECIAL else c
                            for c in value) for value in sorted(values))


def chunks(values, limit=None):
    """``values`` split into lists whose alternation stays within
    ``limit`` characters (MAX_ALTERNATION by default)."""
    limit = MAX_ALTERNATION if limit is None else limit
    chunk, size = [], 0
    for value in sorted(values):
        length = len(alternation([value])) + 1
        if chunk and size + length > limit:
            yield chunk
            chunk, size = [], 0
        chunk.append(value)
        size += length
    if chunk:
        yield chunk


def _string(text):
    return '"%s"' % text.replace('\\', '\\\\').replace('"', '\\"')


def aggregate_of(metric, aggregate):
    if metric in ('host_cpu_usage', 'host_ram_usage'):
        aggregate = INVERTED.get(aggregate, aggregate)
    return AGGREGATES[aggregate]


def host_cpu_usage(series, label, hosts, period, agg):
    # Percent busy: 100 less the idle share of all the host's CPUs.
    return ("100 - (%s by (%s)(rate(%s[%ds])) * 100)"
            % (agg, label, selector(series, label, hosts, "mode='idle'"),
               period))


def host_ram_usage(series, label, hosts, period, agg):
    # KiB used: total less available, from bytes.
    _, own = parse_selector(series)
    total = selector('node_memory_MemTotal_bytes{%s}' % own, label, hosts)
    return ("(%s - %s_over_time(%s[%ds])) / 1024"
            % (total, agg, selector(series, label, hosts), period))


def host_gauge(series, label, hosts, period, agg):
    # Several sensors of one name on a host (two PSUs' inlet sensors)
    # are aggregated as the samples are.
    return ("%s by (%s)(%s_over_time(%s[%ds]))"
            % (agg, label, agg, selector(series, label, hosts), period))


def host_airflow(series, label, hosts, period, agg):
    # Watcher's gnocchi datasource multiplies the airflow a BMC reports
    # by 10 before its strategies compare it; so does this query, so that
    # both datasources give one figure.
    return '10 * ' + host_gauge(series, label, hosts, period, agg)


def instance_cpu_cores(series, label, uuids, period, agg):
    # Cores busy (ns of CPU time per s / 1e9); see cpu_percent.
    return ("(%s by (%s)(rate(%s[%ds]))/10e+8)"
            % (agg, label, selector(series, label, uuids), period))


def instance_gauge(series, label, uuids, period, agg):
    # Watcher's query for instance_ram_usage: no "by", every label kept.
    return ("%s_over_time(%s[%ds])"
            % (agg, selector(series, label, uuids), period))


def instance_gauge_by(series, label, uuids, period, agg):
    return ("%s by (%s)(%s_over_time(%s[%ds]))"
            % (agg, label, agg, selector(series, label, uuids), period))


HOST_QUERIES = {
    'host_cpu_usage': host_cpu_usage,
    'host_ram_usage': host_ram_usage,
    'host_outlet_temp': host_gauge,
    'host_inlet_temp': host_gauge,
    'host_airflow': host_airflow,
    'host_power': host_gauge,
}
INSTANCE_QUERIES = {
    'instance_cpu_usage': instance_cpu_cores,
    'instance_ram_usage': instance_gauge,
    'instance_ram_allocated': instance_gauge_by,
    'instance_root_disk_size': instance_gauge_by,
    'instance_l3_cache_usage': instance_gauge_by,
}


def build(metric, series, label, keys, period, aggregate):
    """The Query of ``metric`` (read from ``series``, a metric map entry)
    for the resources whose ``label`` is in ``keys``."""
    shape = HOST_QUERIES.get(metric) or INSTANCE_QUERIES[metric]
    return Query(shape(series, label, keys, int(period),
                       aggregate_of(metric, aggregate)), label)


def cpu_percent(cores, vcpus):
    """Watcher's instance_cpu_usage from cores busy: percent of the
    server's vcpus (1 if unknown), at most 100 (rates overshoot on a
    busy host)."""
    return min(cores * 100.0 / (vcpus or 1), 100.0)
