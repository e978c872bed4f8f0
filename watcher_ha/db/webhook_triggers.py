"""Webhook triggers of EVENT audits, and how often one may come.

A trigger is recorded on the audit (PENDING, due now) before any message
is sent, so that it survives a lost message: the engines' sweep takes
triggered audits. The time of the last trigger is recorded with it;
when webhooks are public, a trigger sooner than the configured interval
after it is refused. Being a column, the rule holds across API workers
and hosts, which an in-process bucket would not.
"""

import datetime
import math

from watcher_ha.common import exception
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import audits
from watcher_ha.db import models

# An EVENT audit may be triggered while idle: new, or done with a round.
TRIGGERABLE = (AuditState.PENDING, AuditState.SUCCEEDED)


def _refuse_early(audit, now, min_interval):
    """WebhookTooSoon if ``audit`` was triggered less than
    ``min_interval`` seconds before ``now``."""
    last = audit['webhook_triggered_at']
    if not min_interval or last is None:
        return
    wait = (last + datetime.timedelta(seconds=min_interval)
            - now).total_seconds()
    if wait > 0:
        raise exception.WebhookTooSoon(audit=audit['uuid'],
                                       interval=min_interval,
                                       seconds=math.ceil(wait))


def trigger(context, audit, min_interval=0):
    """Record a trigger of ``audit`` (a row as audits.get returns it).

    ``min_interval``: seconds that must have passed since the audit's
    last trigger (0: no limit). Of triggers racing from the same read,
    the audit's compare-and-swap lets one through; the others find that
    trigger when they look again, and are refused as too soon too.
    """
    if audit['audit_type'] != AuditType.EVENT:
        raise exception.AuditTypeNotAllowed(audit_type=audit['audit_type'])
    if audit['state'] not in TRIGGERABLE:
        raise exception.Invalid('Audit state %s is disallowed.'
                                % audit['state'])
    now = models.utcnow()
    _refuse_early(audit, now, min_interval)
    new_state = (AuditState.PENDING if audit['state'] == AuditState.SUCCEEDED
                 else None)
    try:
        return audits.update(
            context, audit,
            {'next_run_time': now, 'webhook_triggered_at': now},
            new_state=new_state)
    except exception.StateConflict:
        _refuse_early(audits.get(context, audit['uuid']), now, min_interval)
        raise
