"""``POST /v1/webhooks/{audit}``: run an EVENT audit now.

Not gated by microversion, as in Watcher: alarm services call webhook URLs
without version headers.

With ``[api] enable_webhooks_auth = False`` the route is public: anyone
who can reach the API may call it. It then names audits by UUID only
(ids and names can be guessed, so every EVENT audit could be found and
fired), and triggers each audit at most once every ``[api]
public_webhook_min_interval`` seconds.
"""

from oslo_config import cfg
from oslo_utils import uuidutils

from watcher_ha.api import method
from watcher_ha.common import exception
from watcher_ha.db import audits as audits_db
from watcher_ha.db import webhook_triggers
from watcher_ha.decision_engine import rpcapi
from watcher_ha.notifications import notifier
from watcher_ha.policies import policy
from watcher_ha.policies import webhook as webhook_policy

CONF = cfg.CONF


class WebhooksController:

    @method.expose(status_code=202)
    def post(self, call, ident):
        context = call.context
        public = not CONF.api.enable_webhooks_auth
        if public:
            if not uuidutils.is_uuid_like(ident):
                raise exception.WebhookNeedsUUID(ident=ident)
        else:
            policy.authorize(webhook_policy.TRIGGER, context)
        if not call.raw_body():
            # Alarm services post their alarm; an empty post is a mistake.
            raise exception.MissingArgument(name='body')
        call.json_body()
        audit = audits_db.get(context, ident)
        webhook_triggers.trigger(
            context, audit,
            min_interval=CONF.api.public_webhook_min_interval if public
            else 0)
        notifier.audit('update', audit['uuid'], old_state=audit['state'])
        rpcapi.DecisionEngineAPI().trigger_audit(context, audit['uuid'])
