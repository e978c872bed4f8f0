"""``POST /v1/webhooks/{audit}``: run an EVENT audit now.

Not gated by microversion, as in Watcher: alarm services call webhook URLs
without version headers.
"""

from oslo_config import cfg
from pecan import rest

from watcher_ha.api import method
from watcher_ha.api import request
from watcher_ha.common import exception
from watcher_ha.common import policy
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import audits as audits_db
from watcher_ha.db import models
from watcher_ha.decision_engine import rpcapi
from watcher_ha.notifications import notifier
from watcher_ha.policies import webhook as webhook_policy

CONF = cfg.CONF

# An EVENT audit may be triggered while idle: new, or done with a round.
TRIGGERABLE = (AuditState.PENDING, AuditState.SUCCEEDED)


class WebhooksController(rest.RestController):

    @method.expose(status_code=202)
    def post(self, ident, **params):
        context = request.context()
        if CONF.api.enable_webhooks_auth:
            policy.authorize(webhook_policy.TRIGGER, context)
        if not request.raw_body():
            # Alarm services post their alarm; an empty post is a mistake.
            raise exception.MissingArgument(name='body')
        request.json_body()
        audit = audits_db.get(context, ident)
        if audit['audit_type'] != AuditType.EVENT:
            raise exception.AuditTypeNotAllowed(
                audit_type=audit['audit_type'])
        if audit['state'] not in TRIGGERABLE:
            raise exception.Invalid('Audit state %s is disallowed.'
                                    % audit['state'])
        # The trigger is recorded first (PENDING, due now), so that it
        # survives a lost message: the engines' sweep takes triggered
        # audits. An untriggered EVENT audit waits for its event.
        audits_db.update(
            context, audit, {'next_run_time': models.utcnow()},
            new_state=(AuditState.PENDING
                       if audit['state'] == AuditState.SUCCEEDED else None))
        notifier.audit('update', audit['uuid'], old_state=audit['state'])
        rpcapi.DecisionEngineAPI().trigger_audit(context, audit['uuid'])
