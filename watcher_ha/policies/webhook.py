"""Policy rules for /v1/webhooks."""

from watcher_ha.policies import base

PATH = '/v1/webhooks'

TRIGGER = 'webhook:trigger'

OPERATIONS = {
    'trigger': (base.ADMIN_OR_SERVICE, 'POST', '/{audit_ident}',
                'Trigger an EVENT audit.'),
}


def list_rules():
    return base.rules_for('webhook', PATH, OPERATIONS)
