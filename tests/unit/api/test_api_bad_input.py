"""Bad input found by the fuzz tests (tests/functional/test_api_fuzz.py)
that made the API answer 500 or fail outright, pinned by the exact
requests: each now gets a 4xx saying what is wrong."""

import json

import pytest

UUID = '00000000-0000-0000-0000-000000000000'


def fault(resp):
    inner = json.loads(resp.json['error_message'])
    return inner.get('faultstring') or inner.get('title')


def nested(depth):
    return '[' * depth + ']' * depth


@pytest.fixture
def template(api):
    resp = api.post('/v1/audit_templates', version='1.7', body={
        'name': 'tpl', 'goal': 'dummy', 'strategy': 'dummy'})
    assert resp.status == 201, resp
    return resp.json


# Bodies pecan parsed before our handlers did; its errors escaped the app.

def test_body_too_deep_for_the_json_parser(api):
    resp = api.request('POST', '/v1/audit_templates',
                       raw=nested(10_000).encode())
    assert resp.status == 400, resp
    assert 'more than 64 levels deep' in fault(resp)


def test_json_body_with_unknown_charset(api):
    resp = api.request('POST', '/v1/audit_templates', raw=b'\x00',
                       headers={'Content-Type':
                                'application/json; charset=bogus'})
    assert resp.status == 400, resp
    assert fault(resp) == 'Request is not in valid JSON format'


def test_multipart_body_without_boundary(api):
    resp = api.request('POST', '/v1/audit_templates', raw=b'',
                       headers={'Content-Type': 'multipart/form-data'})
    assert resp.status == 400, resp
    assert fault(resp) == 'Request is not in valid JSON format'


# Bodies that parse but nest deep enough to exhaust the recursion limit
# later (validation, copies, storage).

@pytest.mark.parametrize('depth', [65, 900])
def test_body_nested_too_deep(api, depth):
    raw = ('{"audit_type": "ONESHOT", "goal": "dummy", "strategy": "dummy", '
           '"parameters": {"para2": %s}}' % nested(depth))
    resp = api.request('POST', '/v1/audits', raw=raw.encode())
    assert resp.status == 400, resp
    assert fault(resp) == ('Request body nests JSON arrays or objects more '
                           'than 64 levels deep')


def test_body_nested_within_the_limit_is_read(api):
    raw = ('{"name": "x", "goal": "dummy", "scope": %s}' % nested(60))
    resp = api.request('POST', '/v1/audit_templates', raw=raw.encode())
    # Read, then refused by the schema: scope items are objects.
    assert resp.status == 400, resp
    assert 'field/attribute scope' in fault(resp)


@pytest.mark.parametrize('value', ['NaN', 'Infinity', '-Infinity', '1e400'])
def test_non_finite_numbers_are_not_json(api, value):
    # Stored, they made the API's own answers invalid JSON.
    raw = ('{"audit_type": "ONESHOT", "goal": "dummy", "strategy": "dummy", '
           '"parameters": {"para1": %s}}' % value)
    resp = api.request('POST', '/v1/audits', raw=raw.encode())
    assert resp.status == 400, resp
    assert fault(resp) == 'Request is not in valid JSON format'


# Paths that do not fit the handler's arguments (TypeError).

@pytest.mark.parametrize('method, path', [
    ('PATCH', '/v1/audit_templates/'),
    ('DELETE', '/v1/audits/'),
    ('GET', '/v1/audits//'),
    ('POST', '/v1/action_plans//start'),
    ('GET', '/v1/strategies//state'),
])
def test_path_without_identifier(api, method, path):
    resp = api.request(method, path, raw=b'[]')
    assert resp.status == 400, resp
    assert fault(resp) == 'Missing argument: "ident"'


# Pecan's search for a controller further down the path (IndexError).

@pytest.mark.parametrize('path', ['/v1/x/y/audits', '/x/y/v1/audits',
                                  '/v1//x/y/goals'])
def test_collection_behind_unknown_segments(api, path):
    resp = api.get(path)
    assert resp.status == 404, resp
    assert json.loads(resp.json['error_message'])['title'] == 'Not Found'
    assert api.post(path, body={}).status == 405


def test_collections_still_routed(api):
    assert api.get('/v1//audits').status == 200
    assert api.get('/goals/dummy').status == 200


# Digits that str.isdigit() accepts and int() refuses (ValueError).

def test_superscript_digit_identifier(api, template):
    resp = api.patch('/v1/audit_templates/%C2%B9', body=[])
    assert resp.status == 404, resp
    assert fault(resp) == 'AuditTemplate \u00b9 could not be found'
    assert api.get('/v1/goals/%C2%B9').status == 404


def test_superscript_digit_service_marker(api):
    resp = api.get('/v1/services?marker=%C2%B9')
    assert resp.status == 400, resp
    assert fault(resp) == 'Expected a uuid or int but received \u00b9'


def test_superscript_digit_interval(api):
    resp = api.post('/v1/audits', body={
        'audit_type': 'CONTINUOUS', 'goal': 'dummy', 'interval': '\u00b9'})
    assert resp.status == 400, resp
    assert 'neither a number of seconds nor a valid cron' in fault(resp)


# Times that overflow when converted to UTC (OverflowError).

@pytest.mark.parametrize('value', ['0001-01-01T00:00:00+01:00',
                                   '0001-1-1T00+0001',
                                   '9999-12-31T23:59:59-01:00'])
def test_time_out_of_range_in_utc(api, value):
    resp = api.post('/v1/audits', version='1.1', body={
        'audit_type': 'CONTINUOUS', 'goal': 'dummy', 'interval': '60',
        'start_time': value})
    assert resp.status == 400, resp
    assert fault(resp).startswith(
        'Invalid input for field/attribute start_time. Value: %r.' % value)


# Values that SQLite stores but that do not fit their column elsewhere.

def test_interval_too_long(api):
    # Its digits would not fit the interval column (64 characters).
    raw = ('{"audit_type": "CONTINUOUS", "goal": "dummy", "interval": %d}'
           % 10 ** 70)
    resp = api.request('POST', '/v1/audits', raw=raw.encode())
    assert resp.status == 400, resp
    assert fault(resp) == (
        'Interval 10000000000000000000... seconds is out of range: a '
        'continuous audit runs every 1 to 31622400 seconds (366 days); for '
        'rarer rounds give a cron expression.')
