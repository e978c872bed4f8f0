"""Policy rules for /v1/audit_templates."""

from watcher_ha.policies import base

PATH = '/v1/audit_templates'

GET_ALL = 'audit_template:get_all'
DETAIL = 'audit_template:detail'
GET = 'audit_template:get'
CREATE = 'audit_template:create'
UPDATE = 'audit_template:update'
DELETE = 'audit_template:delete'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List audit templates.'),
    'detail': (base.READER, 'GET', '/detail',
                'List audit templates with detail.'),
    'get': (base.READER, 'GET', '/{audit_template_uuid}',
                'Show an audit template.'),
    'create': (base.ADMIN, 'POST', '',
                'Create an audit template.'),
    'update': (base.ADMIN, 'PATCH', '/{audit_template_uuid}',
                'Update an audit template.'),
    'delete': (base.ADMIN, 'DELETE', '/{audit_template_uuid}',
                'Delete an audit template.'),
}


def list_rules():
    return base.rules_for('audit_template', PATH, OPERATIONS)
