"""Policy rules for /v1/actions."""

from watcher_ha.policies import base

RULES = base.Resource('action', '/v1/actions', 'action_uuid', 'actions',
                      'an action')
GET_ALL, DETAIL, GET = RULES.reads()
UPDATE = RULES.operation('update', base.ADMIN, 'PATCH', '/{ident}',
                         'Skip an action or change its status message.')

list_rules = RULES.list_rules
