"""[prometheus_client] options: where the ``prometheus`` datasource finds
Prometheus and which labels name hosts and servers. Watcher's group,
option names and defaults; watcher_ha does not deprecate the group (see
doc/source/datasources.rst)."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup(
    'prometheus_client',
    title='The Prometheus server the prometheus datasource queries')

OPTS = [
    cfg.HostAddressOpt(
        'host',
        help=prose.paragraph("""Host name or IP address of the Prometheus
            server. Required when the prometheus datasource is listed in
            [watcher_datasources] datasources.""")),
    cfg.PortOpt(
        'port', default=9090,
        help='Port of the Prometheus server.'),
    cfg.StrOpt(
        'fqdn_label', default='fqdn',
        help=prose.paragraph("""Label of the scrape targets (and so of their
            series) that holds the host's name: a compute node is found by its
            hostname, or by the hostname as the first part of the label's
            value.""")),
    cfg.StrOpt(
        'instance_uuid_label', default='resource',
        help=prose.paragraph("""Label of the server series (ceilometer's) that
            holds the server's UUID.""")),
    cfg.StrOpt(
        'username',
        help=prose.paragraph("""User name for HTTP basic authentication with
            Prometheus; used with password.""")),
    cfg.StrOpt(
        'password', secret=True,
        help='Password for HTTP basic authentication with Prometheus.'),
    cfg.StrOpt(
        'cafile',
        help=prose.paragraph("""CA certificate that signed the Prometheus
            server's certificate. Setting it switches to HTTPS; without it the
            server is reached over plain HTTP.""")),
    cfg.StrOpt(
        'certfile',
        help=prose.paragraph("""Client certificate for TLS with Prometheus;
            used with keyfile and cafile.""")),
    cfg.StrOpt(
        'keyfile',
        help='Key of the client certificate (certfile).'),
]
