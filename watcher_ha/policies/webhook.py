"""Policy rules for /v1/webhooks."""

from watcher_ha.policies import base

RULES = base.Resource('webhook', '/v1/webhooks', 'audit_ident')
TRIGGER = RULES.operation('trigger', base.ADMIN_OR_SERVICE, 'POST',
                          '/{ident}', 'Trigger an EVENT audit.')

list_rules = RULES.list_rules
