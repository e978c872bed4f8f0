"""Policy rules for /v1/goals."""

from watcher_ha.policies import base

PATH = '/v1/goals'

GET_ALL = 'goal:get_all'
DETAIL = 'goal:detail'
GET = 'goal:get'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List goals.'),
    'detail': (base.READER, 'GET', '/detail',
                'List goals with detail.'),
    'get': (base.READER, 'GET', '/{goal_uuid}',
                'Show a goal.'),
}


def list_rules():
    return base.rules_for('goal', PATH, OPERATIONS)
