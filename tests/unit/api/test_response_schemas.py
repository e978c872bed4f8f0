"""Every response object matches the schema its resource's field list
declares, at every microversion, in list and detail views."""

import jsonschema
import pytest

from tests import factories
from watcher_ha.api import microversion
from watcher_ha.api.schemas import action_plans
from watcher_ha.api.schemas import audit_templates
from watcher_ha.api.schemas import audits
from watcher_ha.api.schemas import goals
from watcher_ha.api.schemas import scoring_engines
from watcher_ha.api.schemas import services
from watcher_ha.api.schemas import strategies

RESOURCES = [
    ('goals', goals.GOAL), ('strategies', strategies.STRATEGY),
    ('scoring_engines', scoring_engines.SCORING_ENGINE),
    ('audit_templates', audit_templates.TEMPLATE), ('audits', audits.AUDIT),
    ('action_plans', action_plans.ACTION_PLAN),
    ('actions', action_plans.ACTION), ('services', services.SERVICE),
]


@pytest.fixture
def everything(api, db):
    api.post('/v1/audit_templates', body={'name': 't', 'goal': 'dummy',
                                          'strategy': 'dummy'})
    api.post('/v1/audits', body={'goal': 'dummy', 'strategy': 'dummy',
                                 'audit_type': 'ONESHOT'})
    api.post('/v1/audits', body={'goal': 'dummy', 'audit_type': 'EVENT'})
    factories.action_plan(db, factories.audit(db),
                          indicators=[('released_nodes', 2.0)])
    factories.service(db)


@pytest.mark.parametrize('version', microversion.VERSIONS)
@pytest.mark.parametrize('collection,fields', RESOURCES,
                         ids=[r[0] for r in RESOURCES])
def test_responses_match_their_declared_fields(api, everything, collection,
                                               fields, version):
    version_obj = microversion.Requested(
        microversion.microversion_parse.parse_version_string(version))
    listed = api.get('/v1/' + collection, version=version).json[collection]
    detailed = api.get('/v1/%s/detail' % collection,
                       version=version).json[collection]
    assert listed and len(listed) == len(detailed)
    for item in listed:
        jsonschema.validate(item, fields.schema(version_obj, detail=False))
    for item in detailed:
        jsonschema.validate(item, fields.schema(version_obj, detail=True))
        ident = item['id'] if collection == 'services' else item['uuid']
        shown = api.get('/v1/%s/%s' % (collection, ident),
                        version=version).json
        assert shown == item
