"""Action plans and actions through the API: start, cancel, delete, skip."""

import pytest

from tests import factories
from watcher_ha.common.states import ActionPlanState as P
from watcher_ha.common.states import ActionState as A

CANCEL = [{'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}]


@pytest.fixture
def plan(db):
    audit = factories.audit(db)
    plan, actions = factories.action_plan(
        db, audit, indicators=[('instance_migrations_count', 3.0)])
    return dict(plan, audit_uuid=audit['uuid'], actions=actions)


def test_list_shows_efficacy_indicators_and_audit(api, plan):
    body = api.get('/v1/action_plans').json['action_plans']
    assert [p['uuid'] for p in body] == [plan['uuid']]
    assert body[0]['audit_uuid'] == plan['audit_uuid']
    assert body[0]['efficacy_indicators'] == [{
        'name': 'instance_migrations_count',
        'description': 'instance_migrations_count indicator',
        'unit': None, 'value': 3.0}]
    assert 'hostname' not in body[0]
    shown = api.get('/v1/action_plans/' + plan['uuid'], version='1.5').json
    assert shown['hostname'] is None and shown['status_message'] is None


def test_filter_by_audit_and_refuse_non_uuid(api, plan, db):
    other = factories.audit(db)
    assert api.get('/v1/action_plans?audit_uuid=%s' % other['uuid']).json[
        'action_plans'] == []
    resp = api.get('/v1/action_plans?audit_uuid=nope')
    assert resp.status == 400
    assert resp.fault == 'Expected a uuid but received nope.'
    assert api.get('/v1/action_plans/nope').status == 400


def test_start_moves_to_pending_once(api, plan):
    resp = api.post('/v1/action_plans/%s/start' % plan['uuid'], body={})
    assert resp.status == 200, resp
    assert resp.json['state'] == P.PENDING
    again = api.post('/v1/action_plans/%s/start' % plan['uuid'], body={})
    assert again.status == 400
    assert again.fault == "Couldn't start when state is 'PENDING'."


def test_patch_to_pending_starts_and_cancel_cancels_actions(api, plan):
    resp = api.patch('/v1/action_plans/' + plan['uuid'], body=[
        {'op': 'replace', 'path': '/state', 'value': 'PENDING'}])
    assert resp.json['state'] == P.PENDING
    resp = api.patch('/v1/action_plans/' + plan['uuid'], body=CANCEL)
    assert resp.json['state'] == P.CANCELLED
    states = {a['state'] for a in api.get(
        '/v1/actions?action_plan_uuid=' + plan['uuid']).json['actions']}
    assert states == {A.CANCELLED}


@pytest.mark.parametrize('target,message', [
    ('SUCCEEDED', 'State transition not allowed: (RECOMMENDED -> '
                  'SUCCEEDED)'),
    ('NOPE', 'Invalid state: NOPE'),
])
def test_forbidden_plan_patches(api, plan, target, message):
    resp = api.patch('/v1/action_plans/' + plan['uuid'], body=[
        {'op': 'replace', 'path': '/state', 'value': target}])
    assert resp.status == 400
    assert message in resp.fault
    assert api.patch('/v1/action_plans/' + plan['uuid'], body=[
        {'op': 'replace', 'path': '/hostname', 'value': 'x'}]).status == 400


def test_delete_archives_plan_and_actions(api, plan):
    api.post('/v1/action_plans/%s/start' % plan['uuid'], body={})
    resp = api.delete('/v1/action_plans/' + plan['uuid'])
    assert resp.status == 400
    assert resp.fault == "Couldn't delete when state is 'PENDING'."
    api.patch('/v1/action_plans/' + plan['uuid'], body=CANCEL)
    assert api.delete('/v1/action_plans/' + plan['uuid']).status == 204
    assert api.get('/v1/action_plans/' + plan['uuid']).status == 404
    assert api.get('/v1/actions').json['actions'] == []


def test_actions_list_detail_and_description(api, plan):
    listed = api.get('/v1/actions?audit_uuid=' + plan['audit_uuid']).json
    assert [a['uuid'] for a in listed['actions']] == [
        a['uuid'] for a in plan['actions']]
    assert listed['actions'][1]['parents'] == [plan['actions'][0]['uuid']]
    assert 'input_parameters' not in listed['actions'][0]
    detail = api.get('/v1/actions/detail', version='1.5').json['actions']
    assert detail[0]['input_parameters'] == {'message': 'step 0'}
    assert detail[0]['status_message'] is None
    assert detail[0]['description'] == 'Logging a NOP message'


def test_skip_an_action_with_a_reason(api, plan):
    action = plan['actions'][0]['uuid']
    skip = [{'op': 'replace', 'path': '/state', 'value': 'SKIPPED'},
            {'op': 'replace', 'path': '/status_message',
             'value': 'maintenance window'}]
    assert api.patch('/v1/actions/' + action, body=skip).status == 400
    resp = api.patch('/v1/actions/' + action, body=skip, version='1.5')
    assert resp.status == 200, resp
    assert resp.json['state'] == A.SKIPPED
    assert resp.json['status_message'] == (
        'Action skipped by user. Reason: maintenance window')
    resp = api.patch('/v1/actions/' + action, version='1.5', body=[
        {'op': 'replace', 'path': '/state', 'value': 'PENDING'}])
    assert resp.status == 409
    assert resp.fault == 'State transition not allowed: (SKIPPED -> PENDING)'


def test_no_skip_once_the_plan_runs(api, plan, db):
    import sqlalchemy as sa

    from watcher_ha.db import models
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).values(
            state=P.ONGOING, version=models.ActionPlan.version + 1))
    resp = api.patch('/v1/actions/' + plan['actions'][1]['uuid'],
                     version='1.5', body=[
                         {'op': 'replace', 'path': '/state',
                          'value': 'SKIPPED'}])
    assert resp.status == 409
    assert resp.fault == 'State update not allowed for actionplan state: ' \
                         'ONGOING'


def test_status_message_only_changes_on_skipped_actions(api, plan):
    resp = api.patch('/v1/actions/' + plan['actions'][0]['uuid'],
                     version='1.5', body=[
                         {'op': 'replace', 'path': '/status_message',
                          'value': 'why'}])
    assert resp.status == 409
    resp = api.patch('/v1/actions/' + plan['actions'][0]['uuid'],
                     version='1.5', body=[
                         {'op': 'replace', 'path': '/action_type',
                          'value': 'sleep'}])
    assert resp.status == 400
    assert "'/action_type' is not an allowed attribute" in resp.fault


def test_services_status_from_heartbeat(api, db):
    """The API has no coordination group: its heartbeat tells."""
    import datetime

    from watcher_ha.db import models
    factories.service(db, name='watcher-ha-api', host='alive')
    factories.service(db, name='watcher-ha-api', host='dead',
                      last_seen_up=models.utcnow() -
                      datetime.timedelta(minutes=5))
    services = api.get('/v1/services').json['services']
    assert {s['host']: s['status'] for s in services} == {
        'alive': 'ACTIVE', 'dead': 'FAILED'}
    first = services[0]
    shown = api.get('/v1/services/%d' % first['id']).json
    assert shown['links'][0]['href'].endswith('/v1/services/%d'
                                              % first['id'])
    assert 'last_seen_up' in shown
    page = api.get('/v1/services?limit=1').json
    assert page['next'].endswith('limit=1&marker=%d' % first['id'])
    assert api.get('/v1/services?marker=abc').status == 400


def test_plan_fields_other_than_state_are_internal(api, plan):
    resp = api.patch('/v1/action_plans/' + plan['uuid'], body=[
        {'op': 'replace', 'path': '/status_message', 'value': 'x'}])
    assert resp.status == 400
    assert resp.fault == ("'/status_message' is an internal attribute and "
                          "can not be updated")


def test_empty_webhook_post_is_a_missing_body(api):
    audit = api.post('/v1/audits', body={'goal': 'dummy',
                                         'audit_type': 'EVENT'}).json
    resp = api.request('POST', '/v1/webhooks/' + audit['uuid'])
    assert resp.status == 400
    assert resp.fault == 'Missing argument: "body"'


def _action_events(sent):
    return [(message['event_type'],
             message['payload']['watcher_object.data']['uuid'],
             message['payload']['watcher_object.data'].get('state_update'))
            for _, message, _, _ in sent
            if message['event_type'].startswith('action.')]


def test_actions_following_a_cancel_or_delete_are_announced(
        api, plan, notifications):
    uuids = [a['uuid'] for a in plan['actions']]
    assert api.patch('/v1/action_plans/' + plan['uuid'], CANCEL).status \
        == 200
    updates = _action_events(notifications)
    assert [(event, uuid) for event, uuid, _ in updates] == [
        ('action.update', uuid) for uuid in uuids]
    for _, _, change in updates:
        assert (change['watcher_object.data']['old_state'],
                change['watcher_object.data']['state']) == (A.PENDING,
                                                            A.CANCELLED)
    notifications.clear()
    assert api.delete('/v1/action_plans/' + plan['uuid']).status == 204
    assert [(event, uuid) for event, uuid, _ in _action_events(
        notifications)] == [('action.delete', uuid) for uuid in uuids]
