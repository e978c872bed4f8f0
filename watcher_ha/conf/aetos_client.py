"""[aetos_client] options: the ``aetos`` datasource reaches Aetos (the
Keystone-authenticated Prometheus proxy) as the ``metric-storage`` service
of the catalog. Watcher's group, option names and defaults, plus
``endpoint_override``."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('aetos_client',
                     title='The Aetos service the aetos datasource queries')

INTERFACES = ('public', 'internal', 'admin', 'publicURL', 'internalURL',
              'adminURL')

OPTS = [
    cfg.StrOpt(
        'interface', default='public', choices=INTERFACES,
        help='Catalog interface of the metric-storage endpoint.'),
    cfg.StrOpt(
        'region_name',
        help='Catalog region of the metric-storage endpoint.'),
    cfg.StrOpt(
        'fqdn_label', default='fqdn',
        help=prose.paragraph("""Label of the scrape targets (and so of their
            series) that holds the host's name.""")),
    cfg.StrOpt(
        'instance_uuid_label', default='resource',
        help='Label of the server series that holds the server\'s UUID.'),
    cfg.URIOpt(
        'endpoint_override',
        help=prose.paragraph("""URL of Aetos, instead of the catalog's (for a
            deployment without one, such as [nova] auth_type = none). Not in
            Watcher.""")),
]
