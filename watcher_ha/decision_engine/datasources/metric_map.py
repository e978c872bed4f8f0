"""An operator's metric map file (``[watcher_decision_engine]
metric_map_path``): per datasource, what to read for a metric instead of
the datasource's default. Watcher's file format::

    prometheus:
      host_outlet_temp: 'ipmi_temperature_celsius{name="Exhaust Temp"}'
    gnocchi:
      instance_cpu_usage: cpu

A null value takes a metric away from a datasource, so that the next one
listed answers it. A missing file is no override; a file that is not
such a mapping stops the decision engine at start (Watcher logs and
ignores it, which leaves the operator guessing why the map has no
effect).
"""

import os

from oslo_log import log
import yaml

from watcher_ha.decision_engine.datasources import base

LOG = log.getLogger(__name__)


class MetricMapError(Exception):
    """The metric map file cannot be used; the message says why."""


def read(path):
    """{datasource: {metric: entry or None}} from the file at ``path``;
    {} if there is no file there."""
    if not path or not os.path.exists(path):
        return {}
    try:
        with open(path) as stream:
            content = yaml.safe_load(stream)
    except (OSError, yaml.YAMLError) as err:
        raise MetricMapError('metric map %s cannot be read: %s'
                             % (path, err)) from err
    if content is None:
        return {}
    if not isinstance(content, dict) or not all(
            isinstance(entries, dict) for entries in content.values()):
        raise MetricMapError(
            'metric map %s must map each datasource name to a mapping of '
            'metric names to series (or null)' % path)
    for datasource, entries in content.items():
        for metric, entry in entries.items():
            if metric not in base.METRICS:
                LOG.warning('Metric map %s: %s maps %s, which is not one '
                            'of the metrics strategies read (%s)', path,
                            datasource, metric,
                            ', '.join(sorted(base.METRICS)))
            if entry is not None and not isinstance(entry, str):
                raise MetricMapError(
                    'metric map %s: %s.%s must be a string or null, not %r'
                    % (path, datasource, metric, entry))
    return content


def for_datasource(conf, name, defaults):
    """``defaults`` (a datasource's {metric: entry}) with what the
    configured metric map file says for datasource ``name``."""
    merged = dict(defaults)
    merged.update(read(conf.watcher_decision_engine.metric_map_path)
                  .get(name) or {})
    return merged
