"""Policy rules for /v1/audits."""

from watcher_ha.policies import base

RULES = base.Resource('audit', '/v1/audits', 'audit_uuid', 'audits',
                      'an audit')
GET_ALL, DETAIL, GET = RULES.reads()
CREATE, UPDATE, DELETE = RULES.writes('create', 'update', 'delete')

list_rules = RULES.list_rules
