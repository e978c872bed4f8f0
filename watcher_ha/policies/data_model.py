"""Policy rules for /v1/data_model."""

from watcher_ha.policies import base

RULES = base.Resource('data_model', '/v1/data_model')
GET_ALL = RULES.operation(
    'get_all', base.READER, 'GET', '',
    'Show the cluster data model of a decision engine.')

list_rules = RULES.list_rules
