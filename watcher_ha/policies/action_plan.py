"""Policy rules for /v1/action_plans."""

from watcher_ha.policies import base

PATH = '/v1/action_plans'

GET_ALL = 'action_plan:get_all'
DETAIL = 'action_plan:detail'
GET = 'action_plan:get'
UPDATE = 'action_plan:update'
START = 'action_plan:start'
DELETE = 'action_plan:delete'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List action plans.'),
    'detail': (base.READER, 'GET', '/detail',
                'List action plans with detail.'),
    'get': (base.READER, 'GET', '/{action_plan_uuid}',
                'Show an action plan.'),
    'update': (base.ADMIN, 'PATCH', '/{action_plan_uuid}',
                'Update an action plan.'),
    'start': (base.ADMIN, 'POST', '/{action_plan_uuid}/start',
                'Start an action plan.'),
    'delete': (base.ADMIN, 'DELETE', '/{action_plan_uuid}',
                'Delete an action plan.'),
}


def list_rules():
    return base.rules_for('action_plan', PATH, OPERATIONS)
