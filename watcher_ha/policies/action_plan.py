"""Policy rules for /v1/action_plans."""

from watcher_ha.policies import base

RULES = base.Resource('action_plan', '/v1/action_plans', 'action_plan_uuid',
                      'action plans', 'an action plan')
GET_ALL, DETAIL, GET = RULES.reads()
(UPDATE,) = RULES.writes('update')
START = RULES.operation('start', base.ADMIN, 'POST', '/{ident}/start',
                        'Start an action plan.')
(DELETE,) = RULES.writes('delete')
# Reading what a plan would do changes nothing: whoever may show the plan
# may ask, as the show rule says (watcher-ha 1.3).
WHAT_IF = RULES.operation(
    'what_if', 'rule:' + GET, 'GET', '/{ident}/what_if',
    'Project an action plan that has not started onto a copy of the '
    'compute data model (watcher-ha 1.3).')

list_rules = RULES.list_rules
