"""Audits and audit templates through the API: what Watcher's golden
exchanges do not show."""

import pytest

from tests import factories

V17 = '1.7'


def create(api, version=None, **body):
    return api.post('/v1/audits', body=body, version=version)


def test_generated_name_uses_strategy_then_goal(api):
    named = create(api, goal='dummy', strategy='dummy', audit_type='ONESHOT')
    assert named.status == 201, named
    assert named.json['name'].startswith('dummy-')
    assert named.json['parameters'] == {'para1': 3.2, 'para2': 'hello'}
    goal_only = create(api, goal='dummy', audit_type='EVENT')
    assert goal_only.json['strategy_name'] is None
    assert goal_only.json['parameters'] == {}


def test_template_defaults_merge_under_audit_parameters(api):
    resp = api.post('/v1/audit_templates', version=V17, body={
        'name': 'at', 'goal': 'dummy', 'strategy': 'dummy',
        'default_parameters': {'para1': 5.0, 'para2': 'from template'}})
    assert resp.status == 201, resp
    audit = create(api, audit_template_uuid=resp.json['uuid'],
                   audit_type='ONESHOT', parameters={'para1': 9.0})
    assert audit.json['parameters'] == {'para1': 9.0,
                                        'para2': 'from template'}
    assert audit.json['name'].startswith('dummy-')


@pytest.mark.parametrize('body,status,message', [
    ({'goal': 'dummy', 'audit_type': 'CONTINUOUS'}, 400,
     'Interval of audit must be specified for CONTINUOUS.'),
    ({'goal': 'dummy', 'audit_type': 'CONTINUOUS', 'interval': 'often'},
     400, "Interval 'often' is neither a number of seconds"),
    ({'goal': 'dummy', 'audit_type': 'SOMETIMES'}, 400,
     'Audit type SOMETIMES could not be found'),
    ({'audit_type': 'ONESHOT'}, 400,
     'A valid goal or audit_template_id must be provided'),
    ({'goal': 'nope', 'audit_type': 'ONESHOT'}, 400, 'Goal nope is invalid'),
    ({'goal': 'dummy', 'strategy': 'nope', 'audit_type': 'ONESHOT'}, 400,
     'Strategy nope is invalid'),
    ({'goal': 'dummy', 'strategy': 'dummy', 'audit_type': 'ONESHOT',
      'parameters': {'para1': 100}}, 400,
     'Invalid parameters for strategy: 100 is greater than the maximum'),
    ({'goal': 'dummy', 'audit_type': 'ONESHOT', 'parameters': {'a': 1}},
     400, 'no predefined strategy'),
    ({'goal': 'dummy', 'audit_type': 'ONESHOT', 'colour': 'red'}, 400,
     'Unknown attribute for argument audit_p: colour'),
    ({'goal': 'dummy', 'audit_type': 'ONESHOT',
      'name': '3c4a8a1e-9a0f-4a53-8e41-3f3a2b7b6e11'}, 400,
     'looks like a UUID'),
    ({'goal': 'dummy', 'audit_type': 'ONESHOT', 'name': 'x' * 64}, 400,
     'is too long'),
    ({'goal': 'dummy', 'audit_type': 'CONTINUOUS', 'interval': '60',
      'start_time': '2030-01-01T00:00:00'}, 406, 'Request not acceptable.'),
])
def test_invalid_audits(api, body, status, message):
    resp = create(api, **body)
    assert resp.status == status, resp
    assert message in resp.fault


def test_time_window_at_1_1_converted_to_utc(api):
    resp = create(api, version='1.1', goal='dummy', audit_type='CONTINUOUS',
                  interval='*/10 * * * *',
                  start_time='2030-01-01T10:00:00+02:00',
                  end_time='2030-01-02T00:00:00Z')
    assert resp.status == 201, resp
    assert resp.json['start_time'] == '2030-01-01T08:00:00'
    assert resp.json['end_time'] == '2030-01-02T00:00:00'
    bad = create(api, version='1.1', goal='dummy', audit_type='CONTINUOUS',
                 interval='60', start_time='2030-01-02T00:00:00',
                 end_time='2030-01-01T00:00:00')
    assert bad.status == 400
    assert 'must be later than start_time' in bad.fault


def test_names_are_unique_among_live_audits_only(api):
    first = create(api, goal='dummy', audit_type='ONESHOT', name='twice')
    dup = create(api, goal='dummy', audit_type='ONESHOT', name='twice')
    assert dup.status == 409
    assert dup.fault == 'An audit with UUID or name twice already exists'
    api.patch('/v1/audits/twice', body=[
        {'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}])
    assert api.delete('/v1/audits/twice').status == 204
    assert api.get('/v1/audits/' + first.json['uuid']).status == 404
    again = create(api, goal='dummy', audit_type='ONESHOT', name='twice')
    assert again.status == 201


def test_patch_rechecks_parameters_and_interval(api):
    create(api, version=V17, goal='dummy', strategy='dummy',
           audit_type='CONTINUOUS', interval='60', name='c')
    resp = api.patch('/v1/audits/c', body=[
        {'op': 'replace', 'path': '/parameters/para1', 'value': 99}])
    assert resp.status == 400
    assert 'greater than the maximum' in resp.fault
    resp = api.patch('/v1/audits/c', body=[
        {'op': 'replace', 'path': '/interval', 'value': '0 * * * *'},
        {'op': 'replace', 'path': '/parameters/para1', 'value': 2}])
    assert resp.status == 200, resp
    assert resp.json['interval'] == '0 * * * *'
    assert resp.json['parameters'] == {'para1': 2, 'para2': 'hello'}
    resp = api.patch('/v1/audits/c', body=[
        {'op': 'remove', 'path': '/interval'}])
    assert resp.status == 400
    assert 'Interval of audit must be specified' in resp.fault


@pytest.mark.parametrize('interval,message', [
    ('0 0 31 2 *', "Invalid interval: the cron expression '0 0 31 2 *' "
                   "matches no time within 5 years"),
    ('999999999999', 'Interval 999999999999 seconds is out of range: a '
                     'continuous audit runs every 1 to 31622400 seconds'),
])
def test_intervals_that_can_never_run_are_refused(api, interval, message):
    resp = create(api, goal='dummy', audit_type='CONTINUOUS',
                  interval=interval)
    assert resp.status == 400, resp
    assert resp.fault.startswith(message)
    create(api, goal='dummy', audit_type='CONTINUOUS', interval='60',
           name='c')
    resp = api.patch('/v1/audits/c', body=[
        {'op': 'replace', 'path': '/interval', 'value': interval}])
    assert resp.status == 400, resp
    assert resp.fault.startswith(message)
    assert api.get('/v1/audits/c').json['interval'] == '60'


def test_an_audit_accepted_before_the_interval_rules_may_be_renamed(api, db):
    factories.audit(db, state='ONGOING', audit_type='CONTINUOUS',
                    interval='0 0 31 2 *', name='old')
    resp = api.patch('/v1/audits/old', body=[
        {'op': 'replace', 'path': '/name', 'value': 'renamed'}])
    assert resp.status == 200, resp
    resp = api.patch('/v1/audits/renamed', body=[
        {'op': 'replace', 'path': '/interval', 'value': '0 0 30 2 *'}])
    assert resp.status == 400, resp


@pytest.mark.parametrize('path', ['/hostname', '/next_run_time', '/uuid'])
def test_scheduling_fields_are_not_patchable(api, path):
    create(api, goal='dummy', audit_type='EVENT', name='e')
    resp = api.patch('/v1/audits/e', body=[
        {'op': 'replace', 'path': path, 'value': 'x'}])
    assert resp.status == 400, resp


@pytest.mark.parametrize('path', ['/audit_type', '/goal', '/strategy',
                                  '/audit_template_uuid', '/type', '/scope'])
def test_fixed_fields(api, path):
    create(api, goal='dummy', audit_type='EVENT', name='e')
    resp = api.patch('/v1/audits/e', body=[
        {'op': 'replace', 'path': path, 'value': 'ONESHOT'}])
    assert resp.status == 400
    assert "%s can't be updated." % path in resp.fault


def test_list_filters_and_paging(api):
    for index in range(5):
        create(api, goal='dummy', strategy='dummy' if index % 2 else None,
               audit_type='EVENT', name='a%d' % index)
    names = [a['name'] for a in api.get(
        '/v1/audits?strategy=dummy').json['audits']]
    assert names == ['a1', 'a3']
    page = api.get('/v1/audits?limit=2&sort_key=name&sort_dir=desc').json
    assert [a['name'] for a in page['audits']] == ['a4', 'a3']
    following = api.get(page['next'].replace('http://localhost', '')).json
    assert [a['name'] for a in following['audits']] == ['a2', 'a1']
    assert api.get('/v1/audits?goal=nope').json['audits'] == []
    missing = api.get('/v1/audits?marker=3c4a8a1e-9a0f-4a53-8e41-'
                      '3f3a2b7b6e11')
    assert missing.status == 404


def test_template_crud_and_conflicts(api):
    resp = api.post('/v1/audit_templates', body={
        'name': 't', 'goal': 'dummy', 'strategy': 'dummy'})
    assert resp.status == 201
    assert resp.headers['Location'].endswith(resp.json['uuid'])
    assert api.post('/v1/audit_templates', body={
        'name': 't', 'goal': 'dummy'}).status == 409
    resp = api.post('/v1/audit_templates', body={
        'name': 'u', 'goal': 'dummy', 'default_parameters': {'para1': 2}})
    assert resp.status == 406
    resp = api.post('/v1/audit_templates', version=V17, body={
        'name': 'u', 'goal': 'dummy', 'default_parameters': {'para1': 2}})
    assert resp.status == 400
    assert resp.fault == ('default_parameters requires a strategy to be '
                          'specified')
    resp = api.patch('/v1/audit_templates/t', body=[
        {'op': 'remove', 'path': '/strategy'}])
    assert resp.status == 200 and resp.json['strategy_name'] is None
    resp = api.patch('/v1/audit_templates/t', body=[
        {'op': 'remove', 'path': '/goal'}])
    assert resp.status == 400
    assert api.delete('/v1/audit_templates/t').status == 204
    assert api.get('/v1/audit_templates/t').status == 404


@pytest.mark.parametrize('path', ['/status_message', '/hostname',
                                  '/next_run_time'])
def test_internal_fields_say_so(api, path):
    create(api, goal='dummy', audit_type='EVENT', name='e')
    resp = api.patch('/v1/audits/e', body=[
        {'op': 'replace', 'path': path, 'value': 'x'}])
    assert resp.status == 400
    assert resp.fault == ("'%s' is an internal attribute and can not be "
                          "updated" % path)


@pytest.mark.parametrize('name', ['1', '42'])
def test_names_that_look_like_ids_are_refused(api, name):
    create(api, goal='dummy', audit_type='EVENT', name='first')
    resp = create(api, goal='dummy', audit_type='EVENT', name=name)
    assert resp.status == 400
    assert 'looks like a UUID or an id' in resp.fault
    resp = api.post('/v1/audit_templates', body={'name': name,
                                                 'goal': 'dummy'})
    assert resp.status == 400


def test_oneshot_time_window_is_400_before_the_version_check(api):
    resp = create(api, goal='dummy', audit_type='ONESHOT',
                  start_time='2030-01-01T00:00:00')
    assert resp.status == 400
    assert resp.fault == ('Start or End time of audit must not be set for '
                          'ONESHOT.')


def test_next_link_keeps_filters_encoded(api):
    for index in range(3):
        create(api, goal='dummy', strategy='dummy', audit_type='EVENT',
               name='n%d' % index)
    page = api.get('/v1/audits?strategy=dummy&limit=2').json
    assert 'strategy=dummy&sort_key=id' in page['next']
    template = api.post('/v1/audit_templates', body={
        'name': 'a b&c', 'goal': 'dummy'}).json
    assert template['name'] == 'a b&c'


def test_force_and_auto_trigger_are_stored_as_sent(api):
    create(api, goal='dummy', audit_type='EVENT', name='e', force=True)
    shown = api.get('/v1/audits/e', version='1.2').json
    assert (shown['force'], shown['auto_trigger']) == (True, False)
    resp = api.patch('/v1/audits/e', version='1.2', body=[
        {'op': 'replace', 'path': '/force', 'value': False},
        {'op': 'replace', 'path': '/auto_trigger', 'value': True}])
    assert resp.status == 200, resp
    assert (resp.json['force'], resp.json['auto_trigger']) == (False, True)
    resp = api.patch('/v1/audits/e', body=[
        {'op': 'remove', 'path': '/force'}])
    assert resp.fault == ("'/force' is a mandatory attribute and can not "
                          "be removed")


def test_template_fields_a_patch_removes(api):
    api.post('/v1/audit_templates', body={
        'name': 't', 'goal': 'dummy', 'description': 'd',
        'scope': [{'compute': [{'host_aggregates': [{'id': 1}]}]}]})
    resp = api.patch('/v1/audit_templates/t', body=[
        {'op': 'remove', 'path': '/scope'},
        {'op': 'remove', 'path': '/description'}])
    assert resp.status == 200, resp
    assert (resp.json['scope'], resp.json['description']) == ([], None)
    resp = api.patch('/v1/audit_templates/t', body=[
        {'op': 'replace', 'path': '/scope', 'value': None}])
    assert resp.status == 400, resp
