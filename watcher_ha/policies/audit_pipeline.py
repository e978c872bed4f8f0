"""Policy rules for /v1/audit_pipelines (watcher-specs audit-pipeline.rst,
"Security impact": the audit's pattern; administrators create, update,
delete, start and cancel; reading follows the audits' rule here)."""

from watcher_ha.policies import base

RULES = base.Resource('audit_pipeline', '/v1/audit_pipelines',
                      'audit_pipeline_uuid', 'audit pipelines',
                      'an audit pipeline')
GET_ALL, DETAIL, GET = RULES.reads()
(CREATE,) = RULES.writes('create')
UPDATE = RULES.operation('update', base.ADMIN, 'PUT', '/{ident}',
                         'Update an audit pipeline while it is PENDING.')
(DELETE,) = RULES.writes('delete')
START = RULES.operation('start', base.ADMIN, 'POST', '/{ident}/start',
                        'Start planning an audit pipeline.')
CANCEL = RULES.operation('cancel', base.ADMIN, 'POST', '/{ident}/cancel',
                         'Cancel an audit pipeline.')

list_rules = RULES.list_rules
