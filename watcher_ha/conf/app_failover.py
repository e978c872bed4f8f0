"""[app_failover] options: how an application's standby is activated
(doc/source/app_failover.rst)."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP = cfg.OptGroup('app_failover', title='Application failover')

OPTS = [
    cfg.StrOpt(
        'webhook_secret', secret=True,
        help=prose.paragraph("""The key of the HMAC-SHA256 signature of an
            activation webhook (the ``X-Watcher-HA-Signature`` header,
            ``sha256=<hex digest of the body>``), which the receiver checks
            with the same key. Kept here, not in the audit's parameters,
            which every reader of the audit sees. Without it, activation
            webhooks fail.""")),
    cfg.IntOpt(
        'webhook_timeout', default=60, min=1, mutable=True,
        help=prose.paragraph("""Seconds an activation webhook is tried for:
            a delivery that fails (no answer within 10 s, a 5xx, 408 or
            429) is sent again with the same delivery id, waiting longer
            each time (1 s, 2 s, 4 s, up to 10 s), until one is answered
            2xx. Another 4xx fails the activation at once.""")),
]
