"""[api] options: where and how the REST API is served."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('api', title='REST API options')

OPTS = [
    cfg.HostAddressOpt(
        'host', default='127.0.0.1',
        help='Address the API listens on.'),
    cfg.PortOpt(
        'port', default=9322,
        help='TCP port the API listens on.'),
    cfg.IntOpt(
        'backlog', default=4096, min=1,
        help=prose.paragraph("""Connections the kernel completes and queues for
            the API before a worker accepts them (the listen backlog); more are
            refused or their clients retry. The kernel caps it at
            net.core.somaxconn.""")),
    cfg.IntOpt(
        'workers', default=1, min=1,
        help='Number of API worker processes.'),
    cfg.IntOpt(
        'threads', default=16, min=1,
        help='Request threads in each API worker process.'),
    cfg.IntOpt(
        'max_limit', default=1000, min=1,
        help=prose.paragraph("""Largest number of items a list request returns;
            a larger limit is capped to this value.""")),
    cfg.BoolOpt(
        'enable_webhooks_auth', default=True,
        help=prose.paragraph("""Require a token and the webhook:trigger policy
            for POST /v1/webhooks/{audit}. Disable only when the callers (e.g.
            aodh alarm actions) cannot authenticate and the API is reachable
            from trusted networks only. Public webhooks name the audit by UUID
            only, and trigger each audit at most once every
            public_webhook_min_interval seconds.""")),
    cfg.IntOpt(
        'public_webhook_min_interval', default=5, min=0,
        help=prose.paragraph("""With enable_webhooks_auth = False: the least
            number of seconds between two webhook triggers of one audit. A
            trigger sooner is answered 429 with a Retry-After header. Counted
            from the last trigger recorded in the database, so that it holds
            across API workers and hosts. 0: no limit.""")),
    cfg.URIOpt(
        'public_endpoint',
        help=prose.paragraph("""Public URL of the API, used in links and
            Location headers when the API runs behind a proxy. By default the
            request host URL is used.""")),
]
