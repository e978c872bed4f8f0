"""Policy rules for /v1/audit_templates."""

from watcher_ha.policies import base

RULES = base.Resource('audit_template', '/v1/audit_templates',
                      'audit_template_uuid', 'audit templates',
                      'an audit template')
GET_ALL, DETAIL, GET = RULES.reads()
CREATE, UPDATE, DELETE = RULES.writes('create', 'update', 'delete')

list_rules = RULES.list_rules
