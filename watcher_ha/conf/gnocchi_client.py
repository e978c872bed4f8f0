"""[gnocchi_client] options: the ``gnocchi`` datasource reaches Gnocchi as
the ``metric`` service of the catalog. Watcher's group, option names and
defaults, plus ``endpoint_override``."""

from oslo_config import cfg

from watcher_ha.conf import aetos_client

GROUP = cfg.OptGroup('gnocchi_client',
                     title='The Gnocchi service the gnocchi datasource '
                           'queries')

OPTS = [
    cfg.StrOpt(
        'api_version', default='1',
        help='Gnocchi API version; only 1 exists.'),
    cfg.StrOpt(
        'endpoint_type', default='public', choices=aetos_client.INTERFACES,
        help='Catalog interface of the metric endpoint.'),
    cfg.StrOpt(
        'region_name',
        help='Catalog region of the metric endpoint.'),
    cfg.URIOpt(
        'endpoint_override',
        help='URL of Gnocchi, instead of the catalog\'s. Not in Watcher.'),
]
