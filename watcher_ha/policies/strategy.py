"""Policy rules for /v1/strategies."""

from watcher_ha.policies import base

RULES = base.Resource('strategy', '/v1/strategies', 'strategy_uuid',
                      'strategies', 'a strategy')
GET_ALL, DETAIL, GET = RULES.reads()
STATE = RULES.operation('state', base.READER, 'GET', '/{ident}/state',
                        'Show the state of a strategy\'s requirements.')

list_rules = RULES.list_rules
