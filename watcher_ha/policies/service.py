"""Policy rules for /v1/services."""

from watcher_ha.policies import base

PATH = '/v1/services'

GET_ALL = 'service:get_all'
DETAIL = 'service:detail'
GET = 'service:get'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List services.'),
    'detail': (base.READER, 'GET', '/detail',
                'List services with detail.'),
    'get': (base.READER, 'GET', '/{service_id}',
                'Show a service.'),
}


def list_rules():
    return base.rules_for('service', PATH, OPERATIONS)
