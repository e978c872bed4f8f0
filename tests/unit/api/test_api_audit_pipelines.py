"""/v1/audit_pipelines: create, list, show, PUT, start, cancel and
delete, with clear 400s for what a pipeline may not be, and the action
plans of pipelines shown only from watcher-ha 1.4."""

import jsonschema
import pytest
import sqlalchemy as sa

from tests import factories
from watcher_ha.api import microversion
from watcher_ha.api.schemas import audit_pipelines as schema
from watcher_ha.common import context
from watcher_ha.db import models
from watcher_ha.db import pipeline_runs

V14 = {'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.4'}
URL = '/v1/audit_pipelines'


def _templates(api):
    for name, body in (
            ('maintain', {'goal': 'cluster_maintaining',
                          'strategy': 'host_maintenance',
                          'default_parameters': {
                              'maintenance_node': 'compute-1'}}),
            ('balance', {'goal': 'workload_balancing',
                         'strategy': 'workload_balance'}),
            ('dummy', {'goal': 'dummy', 'strategy': 'dummy'})):
        made = api.post('/v1/audit_templates', body=dict(body, name=name),
                        version='1.7')
        assert made.status == 201, made


@pytest.fixture
def templates(api):
    _templates(api)


def _body(*stages, **fields):
    body = {'audit_type': 'ONESHOT', 'execution_mode': 'cascade',
            'stages': [{'audit_template': name} for name in
                       stages or ('maintain', 'balance')]}
    body.update(fields)
    return body


def _create(api, body=None, **fields):
    return api.post(URL, body=body or _body(**fields), headers=V14)


def _stored(db, uuid):
    with db.connect() as conn:
        return conn.execute(sa.select(models.AuditPipeline).where(
            models.AuditPipeline.uuid == uuid)).one()


def test_create_snapshots_each_template_in_order(api, db, templates):
    made = _create(api, body={
        'name': 'maintenance-pipeline', 'audit_type': 'ONESHOT',
        'execution_mode': 'cascade',
        'stages': [{'name': 'maintenance', 'description': 'drain',
                    'audit_template': 'maintain'},
                   {'name': 'rebalance', 'audit_template': 'balance'}]})
    assert made.status == 201, made
    pipeline = made.json
    assert made.headers['Location'].endswith(URL + '/' + pipeline['uuid'])
    assert (pipeline['state'], pipeline['auto_trigger'],
            pipeline['audit_type'], pipeline['execution_mode']) == (
        'PENDING', True, 'ONESHOT', 'cascade')
    template = api.get('/v1/audit_templates/maintain').json
    first, second = pipeline['stages']
    assert first['position'] == 0 and second['position'] == 1
    assert (first['name'], first['description']) == ('maintenance', 'drain')
    assert second['description'] is None
    assert first['audit_template_uuid'] == template['uuid']
    assert (first['goal_uuid'], first['strategy_uuid']) == (
        template['goal_uuid'], template['strategy_uuid'])
    # Planning was asked for at once (auto_trigger defaults to true).
    assert _stored(db, pipeline['uuid']).triggered_at is not None
    with db.connect() as conn:
        parameters = conn.execute(sa.select(
            models.AuditPipelineStage.parameters).order_by(
                models.AuditPipelineStage.position)).scalars().all()
    assert parameters[0]['maintenance_node'] == 'compute-1'
    # A later edit of the template changes nothing of the pipeline.
    api.delete('/v1/audit_templates/balance')
    shown = api.get(URL + '/' + pipeline['uuid'], headers=V14).json
    assert shown['stages'][1]['audit_template_uuid'] is None
    assert shown['stages'][1]['goal_uuid'] == second['goal_uuid']


@pytest.mark.parametrize('fields,message', [
    ({'audit_type': 'CONTINUOUS'}, 'audit_type CONTINUOUS is not supported'),
    ({'audit_type': 'EVENT'}, 'audit_type EVENT is not supported'),
    ({'execution_mode': 'composite'},
     'execution_mode composite is not supported'),
    ({'stages': [{'audit_template': 'maintain'}]},
     'an audit pipeline has 2 to 10 stages, not 1'),
    ({'stages': []}, 'an audit pipeline has 2 to 10 stages, not 0'),
    ({'stages': [{'audit_template': 'dummy'}] * 11},
     'an audit pipeline has 2 to 10 stages, not 11'),
    ({'stages': [{'audit_template': 'maintain'},
                 {'audit_template': 'nowhere'}]},
     'stage 2: The audit template UUID or name specified is invalid: '
     'nowhere'),
    ({'stages': [{'audit_template': 'maintain', 'input_parameters': {}},
                 {'audit_template': 'balance'}]},
     'Unknown attribute for argument audit_pipeline: input_parameters'),
    ({'goal': 'dummy'}, 'Unknown attribute for argument audit_pipeline: '
                        'goal'),
    ({'stages': [{'name': 'x'}, {'audit_template': 'balance'}]},
     'audit_template'),
])
def test_bad_pipelines_are_400_saying_why(api, templates, fields, message):
    refused = _create(api, **fields)
    assert refused.status == 400, refused
    assert message in refused.fault


@pytest.mark.parametrize('missing', ['audit_type', 'execution_mode',
                                     'stages'])
def test_the_spec_requires_type_mode_and_stages(api, templates, missing):
    body = _body()
    del body[missing]
    refused = _create(api, body=body)
    assert refused.status == 400 and missing in refused.fault


def test_stage_parameters_must_suit_the_strategy(api, db, templates):
    # A template stored before its strategy's schema changed, say.
    with db.begin() as conn:
        conn.execute(sa.update(models.AuditTemplate).where(
            models.AuditTemplate.name == 'balance').values(
                default_parameters={'threshold': 'high'}))
    refused = _create(api)
    assert refused.status == 400
    assert refused.fault.startswith('stage 2: Invalid default_parameters')


def test_ten_stages_are_allowed(api, templates):
    assert _create(api, stages=[{'audit_template': 'dummy'}] * 10).status \
        == 201


def test_served_from_watcher_ha_1_3_only(api, templates):
    assert api.post(URL, body=_body()).status == 406
    assert api.get(URL).status == 406
    assert api.get(URL, headers={
        'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.2'}
    ).status == 406
    assert 'audit_pipelines' not in api.get('/v1', version='1.7').json
    assert 'audit_pipelines' in api.get('/v1', headers=V14).json


def test_list_filters_detail_and_show_by_name(api, db, templates):
    first = _create(api, name='one').json
    _create(api, name='two', auto_trigger=False)
    pipeline_runs.claim(context.admin_context(), first['uuid'], 'engine-1')
    listed = api.get(URL, headers=V14).json['audit_pipelines']
    assert {p['name'] for p in listed} == {'one', 'two'}
    assert 'stages' not in listed[0]
    assert [p['name'] for p in api.get(URL + '?state=ONGOING',
                                       headers=V14).json[
        'audit_pipelines']] == ['one']
    assert api.get(URL + '?execution_mode=cascade&audit_type=ONESHOT'
                   '&sort_key=name&sort_dir=asc&limit=1',
                   headers=V14).json['audit_pipelines'][0]['name'] == 'one'
    detailed = api.get(URL + '/detail', headers=V14).json['audit_pipelines']
    assert all(len(p['stages']) == 2 for p in detailed)
    shown = api.get(URL + '/one', headers=V14).json
    assert shown['hostname'] == 'engine-1'
    assert api.get(URL + '/nowhere', headers=V14).status == 404


def test_responses_match_the_declared_fields(api, templates):
    _create(api)
    version = microversion.Requested(
        microversion.MAX_VERSION, microversion.microversion_parse
        .parse_version_string('1.4'))
    for item in api.get(URL, headers=V14).json['audit_pipelines']:
        jsonschema.validate(item, schema.PIPELINE.schema(version, False))
    for item in api.get(URL + '/detail', headers=V14).json[
            'audit_pipelines']:
        jsonschema.validate(item, schema.PIPELINE.schema(version, True))


def test_start_triggers_a_pending_pipeline_once_pending_only(api, db,
                                                             templates):
    made = _create(api, auto_trigger=False).json
    assert _stored(db, made['uuid']).triggered_at is None
    started = api.post(URL + '/%s/start' % made['uuid'], headers=V14)
    assert (started.status, started.body) == (202, b'')
    assert _stored(db, made['uuid']).triggered_at is not None
    pipeline_runs.claim(context.admin_context(), made['uuid'], 'engine-1')
    again = api.post(URL + '/%s/start' % made['uuid'], headers=V14)
    assert again.status == 409
    assert 'is ONGOING: only a PENDING pipeline may be started' \
        in again.fault


def test_cancel_pending_at_once_ongoing_as_a_request(api, db, templates):
    pending = _create(api, name='p', auto_trigger=False).json
    assert api.post(URL + '/p/cancel', headers=V14).status == 202
    assert _stored(db, pending['uuid']).state == 'CANCELLED'
    assert api.post(URL + '/p/cancel', headers=V14).status == 409
    ongoing = _create(api, name='o').json
    pipeline_runs.claim(context.admin_context(), ongoing['uuid'], 'e-1')
    assert api.post(URL + '/o/cancel', headers=V14).status == 202
    row = _stored(db, ongoing['uuid'])
    assert row.state == 'ONGOING' and row.cancel_requested_at is not None


def test_put_renames_only_while_pending(api, db, templates):
    made = _create(api, name='p').json
    stages = [{'uuid': s['uuid'], 'name': 'renamed-%d' % s['position']}
              for s in made['stages']]
    put = api.request('PUT', URL + '/p', headers=V14, body={
        'name': 'q', 'auto_trigger': False, 'stages': stages})
    assert put.status == 200, put
    assert (put.json['name'], put.json['auto_trigger']) == ('q', False)
    assert [s['name'] for s in put.json['stages']] == ['renamed-0',
                                                        'renamed-1']
    reordered = api.request('PUT', URL + '/q', headers=V14,
                            body={'stages': stages[::-1]})
    assert reordered.status == 400
    assert 'give each of its 2 stages by its uuid, in their order' \
        in reordered.fault
    fewer = api.request('PUT', URL + '/q', headers=V14,
                        body={'stages': stages[:1]})
    assert fewer.status == 400
    retemplated = api.request('PUT', URL + '/q', headers=V14, body={
        'stages': [dict(stages[0], audit_template='dummy'), stages[1]]})
    assert retemplated.status == 400
    assert 'audit_template' in retemplated.fault
    immutable = api.request('PUT', URL + '/q', headers=V14, body={
        'stages': stages, 'execution_mode': 'cascade', 'state': 'ONGOING'})
    assert immutable.status == 400
    assert immutable.fault.startswith(
        'execution_mode, state cannot be changed')
    pipeline_runs.claim(context.admin_context(), made['uuid'], 'e-1')
    late = api.request('PUT', URL + '/q', headers=V14,
                       body={'stages': stages})
    assert late.status == 409


def test_delete_archives_ended_pipelines_409_otherwise(api, db, templates):
    made = _create(api, name='p').json
    assert api.delete(URL + '/p', headers=V14).status == 409
    pipeline_runs.claim(context.admin_context(), made['uuid'], 'e-1')
    assert api.delete(URL + '/p', headers=V14).status == 409
    row = pipeline_runs.get(context.admin_context(), made['uuid'])
    pipeline_runs.finish(context.admin_context(), row, 'e-1', 'FAILED', 'x')
    assert api.delete(URL + '/p', headers=V14).status == 204
    assert api.get(URL + '/p', headers=V14).status == 404
    assert _stored(db, made['uuid']).state == 'DELETED'


def test_names_unique_among_live_pipelines(api, templates):
    assert _create(api, name='same').status == 201
    assert _create(api, name='same').status == 409
    refused = _create(api, name='42')
    assert refused.status == 400 and 'looks like a UUID' in refused.fault


def test_pipelines_plans_are_hidden_before_1_3(api, db):
    pipeline, stages = factories.audit_pipeline(db, state='SUCCEEDED')
    audit_plan, _ = factories.action_plan(db, factories.audit(db))
    with db.begin() as conn:
        plan_id = conn.execute(sa.insert(models.ActionPlan).values(
            uuid='33333333-3333-4333-8333-333333333333', state='RECOMMENDED',
            audit_pipeline_id=pipeline['id'], global_efficacy=[],
            created_at=models.utcnow())).inserted_primary_key[0]
    plan_url = '/v1/action_plans/33333333-3333-4333-8333-333333333333'
    old = api.get('/v1/action_plans', version='1.7').json['action_plans']
    assert [p['uuid'] for p in old] == [audit_plan['uuid']]
    assert 'audit_pipeline_uuid' not in old[0]
    assert api.get(plan_url, version='1.7').status == 404
    assert api.post(plan_url + '/start', version='1.7').status == 404
    assert api.get('/v1/action_plans?audit_pipeline_uuid=%s'
                   % pipeline['uuid'], version='1.7').status == 400
    new = api.get('/v1/action_plans', headers=V14).json['action_plans']
    assert {p['uuid']: p['audit_pipeline_uuid'] for p in new} == {
        audit_plan['uuid']: None,
        '33333333-3333-4333-8333-333333333333': pipeline['uuid']}
    shown = api.get(plan_url, headers=V14).json
    assert (shown['audit_uuid'], shown['strategy_uuid']) == (None, None)
    assert [p['uuid'] for p in api.get(
        '/v1/action_plans?audit_pipeline_uuid=%s' % pipeline['uuid'],
        headers=V14).json['action_plans']] == [
        '33333333-3333-4333-8333-333333333333']
    assert plan_id
