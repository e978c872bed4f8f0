"""Policy rules for /v1/scoring_engines."""

from watcher_ha.policies import base

PATH = '/v1/scoring_engines'

GET_ALL = 'scoring_engine:get_all'
DETAIL = 'scoring_engine:detail'
GET = 'scoring_engine:get'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'List scoring engines.'),
    'detail': (base.READER, 'GET', '/detail',
                'List scoring engines with detail.'),
    'get': (base.READER, 'GET', '/{scoring_engine_id}',
                'Show a scoring engine.'),
}


def list_rules():
    return base.rules_for('scoring_engine', PATH, OPERATIONS)
