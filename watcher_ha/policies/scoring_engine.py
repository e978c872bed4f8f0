"""Policy rules for /v1/scoring_engines."""

from watcher_ha.policies import base

RULES = base.Resource('scoring_engine', '/v1/scoring_engines',
                      'scoring_engine_id', 'scoring engines',
                      'a scoring engine')
GET_ALL, DETAIL, GET = RULES.reads()

list_rules = RULES.list_rules
