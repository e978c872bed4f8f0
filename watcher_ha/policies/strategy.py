"""Policy rules for /v1/strategies."""

from watcher_ha.policies import base

PATH = '/v1/strategies'

GET_ALL = 'strategy:get_all'
DETAIL = 'strategy:detail'
GET = 'strategy:get'
STATE = 'strategy:state'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List strategies.'),
    'detail': (base.READER, 'GET', '/detail',
                'List strategies with detail.'),
    'get': (base.READER, 'GET', '/{strategy_uuid}',
                'Show a strategy.'),
    'state': (base.READER, 'GET', '/{strategy_uuid}/state',
                'Show the state of a strategy\'s requirements.'),
}


def list_rules():
    return base.rules_for('strategy', PATH, OPERATIONS)
