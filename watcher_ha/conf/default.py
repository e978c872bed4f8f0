"""[DEFAULT] options owned by watcher_ha."""

import os
import socket

from oslo_config import cfg

from watcher_ha.conf import prose

OPTS = [
    cfg.HostAddressOpt(
        'host',
        default=socket.gethostname(),
        sample_default='<hostname>',
        help=prose.paragraph("""Name of this node. It is stamped on the audits
            and action plans this node runs and must be unique among the
            controllers.""")),
    cfg.StrOpt(
        'state_path',
        default=os.path.join(os.getcwd(), 'state'),
        sample_default='$pwd/state',
        help=prose.paragraph("""Directory where watcher_ha keeps local state:
            the embedded SQLite database and file-based coordination.""")),
    cfg.StrOpt(
        'auth_strategy',
        default='keystone',
        choices=[('keystone', 'Validate tokens with keystonemiddleware.'),
                 ('noauth', 'No authentication: every request is admin. '
                            'For development and tests only.')],
        help='How the API authenticates requests.'),
    cfg.IntOpt(
        'heartbeat_interval', default=10, min=1,
        help=prose.paragraph("""Seconds between two heartbeats of a daemon in
            the services registry.""")),
    cfg.IntOpt(
        'service_retention', default=7 * 24 * 3600, min=0, mutable=True,
        help=prose.paragraph("""Seconds after which a daemon that stopped
            reporting (a retired controller) is removed from GET /v1/services;
            0 keeps it for ever. A daemon that reports again registers
            anew.""")),
    cfg.IntOpt(
        'service_down_time', default=30, min=1,
        help=prose.paragraph("""Seconds without a heartbeat after which GET
            /v1/services shows a service as FAILED.""")),
]
