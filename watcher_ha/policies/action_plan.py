"""Policy rules for /v1/action_plans."""

from watcher_ha.policies import base

RULES = base.Resource('action_plan', '/v1/action_plans', 'action_plan_uuid',
                      'action plans', 'an action plan')
GET_ALL, DETAIL, GET = RULES.reads()
(UPDATE,) = RULES.writes('update')
START = RULES.operation('start', base.ADMIN, 'POST', '/{ident}/start',
                        'Start an action plan.')
(DELETE,) = RULES.writes('delete')

list_rules = RULES.list_rules
