"""Policy rules for /v1/data_model."""

from watcher_ha.policies import base

PATH = '/v1/data_model'

GET_ALL = 'data_model:get_all'

OPERATIONS = {
    'get_all': (base.READER, 'GET', '',
                'Show the cluster data model of a decision engine.'),
}


def list_rules():
    return base.rules_for('data_model', PATH, OPERATIONS)
