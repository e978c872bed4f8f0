"""[simulator] options: a simulated cloud inside watcher-ha-all-in-one,
for a what-if run of audits against a scenario (or the demo)."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('simulator', title='Embedded simulated cloud')

OPTS = [
    cfg.StrOpt(
        'scenario',
        help=prose.paragraph("""A watcher-ha-simulator scenario (YAML). When
            set, watcher-ha-all-in-one also serves that simulated cloud
            (Keystone, Nova, Placement, metrics) and its Nova notifications
            reach the decision engine over the in-process bus, so audits can be
            tried on a copy of a cloud with no server at all. Point [nova] and
            [placement] at http://HOST:PORT/identity/v3 with the scenario's
            credentials. Only watcher-ha-all-in-one reads it.""")),
    cfg.HostAddressOpt(
        'host', default='127.0.0.1',
        help='Address the embedded simulated cloud listens on.'),
    cfg.PortOpt(
        'port', default=8778,
        help='Port the embedded simulated cloud listens on.'),
]
