"""Policy rules for /v1/audits."""

from watcher_ha.policies import base

PATH = '/v1/audits'

GET_ALL = 'audit:get_all'
DETAIL = 'audit:detail'
GET = 'audit:get'
CREATE = 'audit:create'
UPDATE = 'audit:update'
DELETE = 'audit:delete'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List audits.'),
    'detail': (base.READER, 'GET', '/detail',
                'List audits with detail.'),
    'get': (base.READER, 'GET', '/{audit_uuid}',
                'Show an audit.'),
    'create': (base.ADMIN, 'POST', '',
                'Create an audit.'),
    'update': (base.ADMIN, 'PATCH', '/{audit_uuid}',
                'Update an audit.'),
    'delete': (base.ADMIN, 'DELETE', '/{audit_uuid}',
                'Delete an audit.'),
}


def list_rules():
    return base.rules_for('audit', PATH, OPERATIONS)
