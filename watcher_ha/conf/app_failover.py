"""[app_failover] options: how an application's standby is activated, and
how many failovers the cloud begins before it stops (doc/source/
app_failover.rst)."""

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
    cfg.IntOpt(
        'max_failovers', default=0, min=0, mutable=True,
        help=prose.paragraph("""The cloud-wide circuit breaker: once this
            many application failovers (plans failing an application over
            or replacing a member, of every application) began within
            failovers_window seconds, a run that would begin another moves
            nothing and says why, until the window has passed or the
            operator raises this. Beyond one host's failure (which each
            application's max_unhealthy already allows), so many at once
            is a partition or a wider fault, and moving on would make it
            worse. Runs that plan at the same moment may each pass the
            count: it can be exceeded by the runs under way at once
            ([watcher_decision_engine] max_audit_workers per engine).
            0: no cloud-wide breaker. Set it above the most application
            actives one host runs.""")),
    cfg.IntOpt(
        'failovers_window', default=600, min=1, mutable=True,
        help=prose.paragraph("""Seconds over which max_failovers counts the
            failovers begun.""")),
]
