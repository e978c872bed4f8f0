"""[watcher_datasources] options: which datasources strategies read
metrics from, in order. Watcher's group and option names."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('watcher_datasources',
                     title='Datasources the strategies read metrics from')

OPTS = [
    cfg.ListOpt(
        'datasources', default=['gnocchi', 'aetos'],
        help=prose.paragraph("""Datasources to read metrics from, in order: a
            metric goes to the first one that provides it, and to the next one
            if that one cannot answer. Installed: prometheus, aetos, gnocchi.
            Watcher's default less grafana, which watcher_ha does not
            have.""")),
    cfg.IntOpt(
        'query_max_retries', default=10, min=1, mutable=True,
        help=prose.paragraph("""Times one query is sent to a datasource before
            the datasource counts as unable to answer.""")),
    cfg.IntOpt(
        'query_interval', default=1, min=0, mutable=True,
        deprecated_name='query_timeout',
        help='Seconds between two tries of one query.'),
]
