"""Policy rules for /v1/services."""

from watcher_ha.policies import base

RULES = base.Resource('service', '/v1/services', 'service_id', 'services',
                      'a service')
GET_ALL, DETAIL, GET = RULES.reads()

list_rules = RULES.list_rules
