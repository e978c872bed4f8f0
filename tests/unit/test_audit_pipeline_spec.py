"""Audit pipelines against the facts of Watcher's approved spec
(tests/data/reference/watcher-specs/audit-pipeline.json, written down
from watcher-specs specs/2026.2/approved/audit-pipeline.rst): every
assertion names the section of the spec it follows."""

import json

import pytest
import sqlalchemy as sa

from tests import reference_data
from watcher_ha.common import state_machines
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.common.states import ExecutionMode
from watcher_ha.db import models
from watcher_ha.db import transitions

FACTS = json.loads(reference_data.files(
    reference_data.ROOT / 'watcher-specs', 'audit-pipeline.json')[0]
    .read_text())
MACHINE = state_machines.AUDIT_PIPELINE

# The spec's column types, as our models declare them. The spec stores
# scope and parameters as JSON-encoded Text; every JSON column of ours is
# a JSON column (JSON on the databases that have one, text elsewhere).
TYPES = {'String': sa.String, 'Integer': sa.Integer, 'Boolean': sa.Boolean,
         'Text': (sa.Text, sa.JSON)}


def section(part):
    return 'spec section "%s"' % FACTS[part]['section']


def test_the_facts_name_the_spec_they_come_from():
    assert FACTS['source'] == {
        'repository': 'openstack/watcher-specs',
        'path': 'specs/2026.2/approved/audit-pipeline.rst',
        'commit': '815ed72b57fe68802e665740ea547999fdeabb80',
        'committed': '2026-07-20'}


# States and transitions.

def test_the_pipeline_machine_has_the_specs_states():
    facts = FACTS['states']
    where = section('states')
    spec_states = set(facts['transitions']) | {
        target for targets in facts['transitions'].values()
        for target in targets}
    assert MACHINE.states == spec_states, where
    # The spec reuses the audit's states.
    assert MACHINE.states <= state_machines.AUDIT.states, where
    for state in facts['not_pipeline_states']:
        assert state not in MACHINE.states, where


def test_the_pipeline_machine_has_exactly_the_specs_transitions():
    where = section('states')
    ours = {}
    for source, target, _ in MACHINE.edges():
        ours.setdefault(source, set()).add(target)
    assert ours == {source: set(targets) for source, targets
                    in FACTS['states']['transitions'].items()}, where


def test_pipelines_start_pending_and_end_deleted():
    where = section('states')
    assert FACTS['states']['initial'] == AuditState.PENDING, where
    assert MACHINE.sources_of(AuditState.PENDING, state_machines.USER) \
        == frozenset(), where
    assert MACHINE.sources_of(AuditState.PENDING, state_machines.SERVICE) \
        == frozenset(), where
    assert FACTS['states']['final'] == AuditState.DELETED, where
    assert AuditState.DELETED not in MACHINE.transitions, where


def test_the_machine_is_the_one_transitions_writes_pipelines_with():
    assert transitions.MACHINE_OF[models.AuditPipeline] is MACHINE, \
        section('states')


def test_pipelines_are_oneshot_cascades_of_two_to_ten_stages():
    facts = FACTS['stages']
    where = section('stages')
    assert facts['audit_types'] == [AuditType.ONESHOT], where
    assert list(ExecutionMode.ALL) == facts['execution_modes'], where
    assert (facts['min'], facts['max']) == (2, 10), where


# Tables.

def _column(table, name):
    return models.Base.metadata.tables[table].c[name]


@pytest.mark.parametrize('table', ['audit_pipelines', 'audit_pipeline_stages',
                                   'action_plans', 'actions'])
def test_the_tables_have_the_specs_columns(table):
    where = section('tables') + ', table ' + table
    for name, fact in FACTS['tables'][table].items():
        column = _column(table, name)
        assert isinstance(column.type, TYPES[fact['type']]), (where, name)
        if 'length' in fact:
            assert column.type.length == fact['length'], (where, name)
        if 'nullable' in fact:
            assert column.nullable == fact['nullable'], (where, name)
        if 'default' in fact:
            assert column.default.arg == fact['default'], (where, name)
        if 'references' in fact:
            assert {fk.target_fullname for fk in column.foreign_keys} \
                == {fact['references']}, (where, name)


def test_pipeline_names_are_unique_among_live_pipelines():
    """The spec's unique (name, deleted), in this house's archive: a
    unique column the database computes from the name while the
    pipeline is not DELETED."""
    where = section('tables')
    assert ['name', 'deleted'] in FACTS['tables']['audit_pipelines_unique']
    live_name = _column('audit_pipelines', 'live_name')
    assert live_name.unique, where
    assert "state = 'DELETED'" in str(live_name.computed.sqltext), where
    assert _column('audit_pipelines', 'uuid').unique, where


def test_pipelines_have_no_schedule():
    where = section('tables')
    columns = models.Base.metadata.tables['audit_pipelines'].c
    for name in FACTS['tables']['audit_pipelines_omitted']:
        assert name not in columns, (where, name)


def test_an_action_plan_has_an_audit_or_a_pipeline_never_both():
    where = section('tables') + ': ' + FACTS['tables'][
        'action_plan_invariant']
    [check] = [c for c in models.ActionPlan.__table__.constraints
               if isinstance(c, sa.CheckConstraint)]
    assert str(check.sqltext) == (
        '(audit_id IS NULL) <> (audit_pipeline_id IS NULL)'), where


# The API.

V14 = {'OpenStack-API-Version': 'infra-optim 1.7, watcher-ha 1.4'}


def _route_status(operation):
    from watcher_ha.api.controllers import v1
    path = operation['path'].replace('{uuid}', '{ident}')
    handler = dict(((m, p), h) for m, p, h in v1.ROUTES).get(
        (operation['method'], path))
    return handler


def test_every_operation_of_the_spec_has_its_route():
    where = section('api')
    for operation in FACTS['api']['operations']:
        assert _route_status(operation) is not None, (where, operation)


@pytest.fixture
def two_templates(api):
    for name in ('t1', 't2'):
        assert api.post('/v1/audit_templates', body={
            'name': name, 'goal': 'dummy', 'strategy': 'dummy'}).status == 201


def _pipeline_body(**fields):
    body = {'audit_type': 'ONESHOT', 'execution_mode': 'cascade',
            'stages': [{'audit_template': 't1', 'name': 'a',
                        'description': 'first'},
                       {'audit_template': 't2'}]}
    body.update(fields)
    return body


def _status_of(api, operation, uuid, body=None):
    path = operation['path'].replace('{uuid}', uuid)
    return api.request(operation['method'], path, headers=V14,
                       body=body).status


def test_the_operations_answer_the_specs_statuses(api, db, two_templates):
    """Each operation's normal status, on a pipeline in a state that
    allows it; the ended pipeline of the delete made so by its engine."""
    from watcher_ha.db import pipeline_runs
    from watcher_ha.common import context
    where = section('api')
    ops = {op['name']: op for op in FACTS['api']['operations']}
    created = api.post('/v1/audit_pipelines', headers=V14,
                       body=_pipeline_body(auto_trigger=False))
    assert created.status == ops['create']['status'], where
    uuid = created.json['uuid']
    stages = [{'uuid': s['uuid']} for s in created.json['stages']]
    assert _status_of(api, ops['list'], uuid) == ops['list']['status'], where
    assert _status_of(api, ops['show'], uuid) == ops['show']['status'], where
    assert _status_of(api, ops['update'], uuid, {'stages': stages}) \
        == ops['update']['status'], where
    assert _status_of(api, ops['start'], uuid) == ops['start']['status'], \
        where
    assert _status_of(api, ops['cancel'], uuid) == ops['cancel']['status'], \
        where
    assert _status_of(api, ops['delete'], uuid) == ops['delete']['status'], \
        where
    # Each error the spec lists for an operation: unknown pipeline (404),
    # a state that refuses it (409), a bad body (400).
    missing = '44444444-4444-4444-8444-444444444444'
    for name in ('show', 'update', 'start', 'cancel', 'delete'):
        if 404 in ops[name]['errors']:
            assert _status_of(api, ops[name], missing, {'stages': []}) \
                == 404, (where, name)
    other = api.post('/v1/audit_pipelines', headers=V14,
                     body=_pipeline_body()).json['uuid']
    pipeline_runs.claim(context.admin_context(), other, 'engine-1')
    for name in ('update', 'start', 'delete'):
        assert 409 in ops[name]['errors'], (where, name)
        assert _status_of(api, ops[name], other, {'stages': [
            {'uuid': s['uuid']} for s in pipeline_runs.get(
                context.admin_context(), other)['stages']]}) == 409, (
            where, name)
    assert 400 in ops['create']['errors']
    assert api.post('/v1/audit_pipelines', headers=V14,
                    body=_pipeline_body(stages=[])).status == 400, where


def test_the_create_schema_is_the_specs():
    from watcher_ha.api.schemas import audit_pipelines as schema
    facts = FACTS['api']['create']
    where = section('api') + ', create'
    created = schema.INPUT.create_schema
    assert sorted(created['required']) == sorted(facts['required']), where
    assert set(created['properties']) == set(facts['required']) | set(
        facts['optional']), where
    assert created['additionalProperties'] is facts[
        'additional_properties'], where
    assert schema.INPUT['auto_trigger'].default is facts[
        'auto_trigger_default'], where
    stage = created['properties']['stages']['items']
    assert stage['required'] == facts['stage_required'], where
    assert set(stage['properties']) == set(facts['stage_required']) | set(
        facts['stage_optional']), where
    assert stage['additionalProperties'] is False, where


def test_responses_carry_the_specs_fields(api, db, two_templates):
    where = section('api') + ', response'
    created = api.post('/v1/audit_pipelines', headers=V14,
                       body=_pipeline_body()).json
    shown = api.get('/v1/audit_pipelines/' + created['uuid'],
                    headers=V14).json
    for body in (created, shown):
        assert set(FACTS['api']['response']) <= set(body), where
        for stage in body['stages']:
            assert set(stage) == set(FACTS['api']['stage_response']), where
    assert created['state'] == FACTS['states']['initial'], where


def test_lists_filter_by_the_specs_fields():
    from watcher_ha.db import audit_pipelines
    assert set(audit_pipelines.VIEW.filters) == set(
        FACTS['api']['list_filters']), section('api')


def test_put_changes_the_specs_mutable_fields_only():
    from watcher_ha.api.schemas import audit_pipelines as schema
    facts = FACTS['api']['update']
    where = section('api') + ', update'
    assert set(schema.MUTABLE) == set(facts['mutable']) | {'stages'}, where
    assert set(schema.MUTABLE_STAGE) == set(facts['stage_mutable']) | {
        facts['stage_key']}, where
    stage = schema.UPDATE['properties']['stages']['items']
    assert set(stage['properties']) == set(schema.MUTABLE_STAGE), where
    assert stage['additionalProperties'] is False, where


def test_start_cancel_and_delete_in_the_specs_states():
    facts = FACTS['api']
    where = section('api')
    # Start: PENDING only (db.audit_pipelines.trigger's condition).
    assert facts['start_states'] == [AuditState.PENDING], where
    # Cancel: PENDING moves to CANCELLED, ONGOING records a request.
    assert MACHINE.sources_of(AuditState.CANCELLED, state_machines.USER) \
        == {AuditState.PENDING}, where
    assert set(facts['cancel_states']) == {AuditState.PENDING,
                                           AuditState.ONGOING}, where
    assert MACHINE.sources_of(AuditState.DELETED, state_machines.USER) \
        == set(facts['delete_states']), where


def test_a_new_microversion_serves_pipelines():
    """The spec asks for a new microversion after the one of
    default_parameters (infra-optim 1.7): ours is watcher-ha 1.4
    (doc/source/watcher_differences.rst says why not infra-optim 1.8)."""
    from watcher_ha.api import microversion
    from watcher_ha.common import pipelines
    where = section('api') + ': ' + FACTS['api']['microversion']
    family, number = pipelines.SINCE.split()
    assert family == microversion.EXTENSION_TYPE, where
    assert number == microversion.EXTENSION_VERSIONS[-1], where


def test_action_plans_name_their_pipeline():
    from watcher_ha.api.schemas import action_plans
    from watcher_ha.common import pipelines
    where = section('api')
    [field] = [f for f in action_plans.ACTION_PLAN.fields
               if f.name == FACTS['api']['action_plan_field']]
    assert field.since == pipelines.SINCE, where


# Policy.

def test_policy_rules_follow_the_audits_pattern():
    from watcher_ha.policies import audit_pipeline
    from watcher_ha.policies import base
    facts = FACTS['policy']
    where = section('policy')
    rules = {rule.name: rule for rule in audit_pipeline.list_rules()}
    names = {'get_all', 'detail', 'get', 'create', 'update', 'delete',
             'start', 'cancel'}
    assert set(rules) == {'audit_pipeline:%s' % n for n in names}, where
    operations = {'create': ['create'], 'update': ['update'],
                  'delete': ['delete'], 'action': ['start', 'cancel'],
                  'read': ['get_all', 'detail', 'get']}
    assert set(operations) == set(facts['operations']), where
    for operation in facts['admin_for']:
        for name in operations[operation]:
            assert rules['audit_pipeline:' + name].check_str == base.ADMIN, \
                (where, name)
    # Reading is the audits' rule here (watcher_differences.rst).
    for name in operations['read']:
        assert rules['audit_pipeline:' + name].check_str == base.READER


# RPC.

def test_the_api_casts_trigger_audit_pipeline(monkeypatch):
    from watcher_ha.decision_engine import rpcapi
    from watcher_ha.service import rpc
    facts = FACTS['rpc']
    where = section('rpc')
    sent = []
    monkeypatch.setattr(rpc, 'cast_or_log', lambda client, context, name,
                        **kwargs: sent.append((name, kwargs)))
    getattr(rpcapi.DecisionEngineAPI(), facts['method'])(
        None, audit_pipeline_uuid='u')
    assert sent == [(facts['method'], {'audit_pipeline_uuid': 'u'})], where
    assert facts['kind'] == 'cast'


# Notifications.

PAYLOAD_TYPES = {'UUID': str, 'String': str, 'Integer': int, 'Boolean': bool,
                 'ListOfObjects': list, 'Object': dict}


def _check_payload(name, data, where):
    payloads = FACTS['notifications']['payloads']
    fields = {}
    spec = payloads[name]
    while spec:
        fields.update(spec['fields'])
        spec = payloads.get(spec.get('extends'))
    assert set(data) == set(fields), (where, name)
    for field, fact in fields.items():
        value = data[field]
        if value is None:
            assert fact.get('nullable'), (where, name, field)
            continue
        assert isinstance(value, PAYLOAD_TYPES[fact['type']]), (
            where, name, field)
        nested = ([value] if fact['type'] == 'Object' else value
                  if fact['type'] == 'ListOfObjects' else [])
        for item in nested:
            if item['watcher_object.name'] in payloads:
                assert item['watcher_object.name'] == fact['of'], where
                _check_payload(fact['of'], item['watcher_object.data'],
                               where)


def test_notifications_carry_the_specs_payloads(api, db, two_templates,
                                                notifications):
    where = section('notifications')
    made = api.post('/v1/audit_pipelines', headers=V14,
                    body=_pipeline_body(auto_trigger=False)).json
    api.post('/v1/audit_pipelines/%s/cancel' % made['uuid'], headers=V14)
    api.delete('/v1/audit_pipelines/' + made['uuid'], headers=V14)
    sent = [(message['event_type'], message['payload'])
            for _, message, _, _ in notifications
            if message['event_type'].startswith('audit_pipeline.')]
    assert [event for event, _ in sent] == [
        'audit_pipeline.create', 'audit_pipeline.update',
        'audit_pipeline.delete'], where
    payloads = FACTS['notifications']['payloads']
    for (event, payload), name in zip(sent, (
            'AuditPipelineCreatePayload', 'AuditPipelineUpdatePayload',
            'AuditPipelineDeletePayload'), strict=True):
        assert payload['watcher_object.name'] == name, where
        assert payload['watcher_object.version'] == payloads[name][
            'version'], where
        _check_payload(name, payload['watcher_object.data'], where)
    update = sent[1][1]['watcher_object.data']['state_update']
    assert update['watcher_object.data']['old_state'] == 'PENDING'
    assert update['watcher_object.data']['state'] == 'CANCELLED'


def test_action_plan_notifications_name_their_pipeline(db, notifications):
    from tests import factories
    from watcher_ha.notifications import notifier
    facts = FACTS['notifications']
    where = section('notifications')
    pipeline, _ = factories.audit_pipeline(db, state='SUCCEEDED')
    with db.begin() as conn:
        conn.execute(sa.insert(models.ActionPlan).values(
            uuid='55555555-5555-4555-8555-555555555555', state='RECOMMENDED',
            audit_pipeline_id=pipeline['id'], global_efficacy=[],
            created_at=models.utcnow()))
    notifier.action_plan('create', '55555555-5555-4555-8555-555555555555')
    [(_, message, _, _)] = notifications
    data = message['payload']['watcher_object.data']
    assert data[facts['action_plan_field']] == pipeline['uuid'], where
    assert 'audit' not in data, where + ': ' + facts[
        'action_plan_nested_audit']
    assert message['payload']['watcher_object.version'] != '1.0', where


def test_the_decision_engine_serves_trigger_audit_pipeline():
    import inspect
    from watcher_ha.decision_engine import manager
    facts = FACTS['rpc']
    endpoint = getattr(manager.Endpoints, facts['method'])
    assert list(inspect.signature(endpoint).parameters)[2:] == facts[
        'arguments'], section('rpc')


def test_efficacy_indicators_of_the_stages_are_concatenated(conf, db):
    """Two stages whose strategies give indicators of one name: the plan
    keeps both, in stage order."""
    from tests.helpers import pipelines as cascade
    from tests import factories
    where = section('efficacy')
    pipeline, _ = factories.audit_pipeline(db, stages=(cascade.BALANCE,
                                                       cascade.BALANCE))
    cascade.handler(conf).run(pipeline['uuid'])
    with db.connect() as conn:
        names = conn.execute(sa.select(models.EfficacyIndicator.name).join(
            models.ActionPlan, models.EfficacyIndicator.action_plan_id
            == models.ActionPlan.id).where(
                models.ActionPlan.audit_pipeline_id == pipeline['id'])
            .order_by(models.EfficacyIndicator.id)).scalars().all()
    once = len(names) // 2
    assert once and names[:once] == names[once:], where
    assert FACTS['efficacy']['same_name_from_stages'] == 'concatenated'
