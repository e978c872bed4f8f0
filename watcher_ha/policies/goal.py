"""Policy rules for /v1/goals."""

from watcher_ha.policies import base

RULES = base.Resource('goal', '/v1/goals', 'goal_uuid', 'goals', 'a goal')
GET_ALL, DETAIL, GET = RULES.reads()

list_rules = RULES.list_rules
