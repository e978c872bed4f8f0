"""Policy rules for /v1/actions."""

from watcher_ha.policies import base

PATH = '/v1/actions'

GET_ALL = 'action:get_all'
DETAIL = 'action:detail'
GET = 'action:get'
UPDATE = 'action:update'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List actions.'),
    'detail': (base.READER, 'GET', '/detail',
                'List actions with detail.'),
    'get': (base.READER, 'GET', '/{action_uuid}',
                'Show an action.'),
    'update': (base.ADMIN, 'PATCH', '/{action_uuid}',
                'Skip an action or change its status message.'),
}


def list_rules():
    return base.rules_for('action', PATH, OPERATIONS)
