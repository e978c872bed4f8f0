"""How the Watcher API reads paths and methods: the answers Watcher's
clients and our goldens saw from its first router (pecan's
RestController), pinned so that the route table keeps them.

A routing refusal (404, 405) carries Watcher's ``{code, title}`` error
body and no microversion headers; a refusal from a handler (a missing
identifier, a resource not found) carries a ``faultstring`` and the
headers.
"""

import json

import pytest

from watcher_ha.api import microversion

ROUTING_404 = {'code': 404, 'title': 'Not Found', 'description': ''}
ROUTING_405 = {'code': 405, 'title': 'Method Not Allowed',
               'description': ''}


def inner(resp):
    return json.loads(resp.json['error_message'])


def versioned(resp):
    return microversion.HEADER in resp.headers


def assert_routing_404(resp):
    assert resp.status == 404, resp
    assert inner(resp) == ROUTING_404
    assert not versioned(resp)


@pytest.mark.parametrize('path', [
    '/v1/x', '/v1/x/y/audits', '/x', '//', '//v1/goals/dummy',
    '/v1//goals/dummy', '/v1/goals/x/detail', '/v1/audits/x/y',
    '/v1/strategies/x/state/y', '/goals/v1', '/goals/v1/audits',
])
def test_unknown_paths_are_plain_404(api, path):
    assert_routing_404(api.get(path))


@pytest.mark.parametrize('method, path, allow', [
    ('POST', '/v1/x', 'GET'),
    ('POST', '/', 'GET'),
    ('DELETE', '/v1/goals/dummy', 'GET'),
    ('PATCH', '/v1/goals', 'GET'),
    ('PUT', '/v1/audits/x', 'DELETE, GET, PATCH, POST'),
    ('TRACE', '/v1/action_plans', 'DELETE, GET, PATCH'),
    ('POST', '/v1/actions', 'GET, PATCH'),
    ('GET', '/v1/webhooks/x', 'POST'),
    ('GET', '/v1/data_model/x', 'GET'),
    ('FOO', '/v1/services', 'GET'),
    ('PUT', '/goals/v1/audits', 'GET'),
])
def test_other_methods_are_405_with_the_collections_methods(
        api, method, path, allow):
    resp = api.request(method, path)
    assert resp.status == 405, resp
    assert resp.headers['Allow'] == allow
    assert inner(resp) == ROUTING_405
    assert not versioned(resp)


@pytest.mark.parametrize('path, allow', [
    ('/', 'GET'), ('/v1', 'GET'), ('/v1/goals', 'GET'),
    ('/v1/audits/x', 'DELETE, GET, PATCH, POST'), ('/goals', 'GET'),
    ('/v1/webhooks', 'POST'),
])
def test_head_is_405(api, path, allow):
    resp = api.request('HEAD', path)
    assert resp.status == 405, resp
    assert resp.headers['Allow'] == allow
    assert resp.body == b''


@pytest.mark.parametrize('path', ['/', '/v1/goals', '/v1/x', '/nowhere'])
def test_options_is_200_without_body(api, path):
    resp = api.request('OPTIONS', path)
    assert resp.status == 200, resp
    assert resp.body == b''


@pytest.mark.parametrize('path', [
    '/v1/goals/', '//v1/goals', '/v1//goals', '/v1//goals/', '/goals',
    '/goals/', '/v1/goals/detail', '/v1/goals//detail', '/goals/detail',
])
def test_collection_spellings(api, path):
    resp = api.get(path)
    assert resp.status == 200, resp
    assert 'goals' in resp.json


@pytest.mark.parametrize('path', [
    '/v1/goals/dummy', '/v1/goals//dummy', '/v1/goals///dummy',
    '/goals/dummy', '/goals//dummy',
])
def test_item_spellings(api, path):
    resp = api.get(path)
    assert resp.status == 200, resp
    assert resp.json['name'] == 'dummy'


@pytest.mark.parametrize('method, path', [
    ('GET', '/v1/goals//'),
    ('GET', '/v1/strategies/state'),
    ('POST', '/v1/action_plans/start'),
    ('POST', '/v1/webhooks'),
    ('DELETE', '/v1/audits'),
    ('PATCH', '/audit_templates'),
])
def test_missing_identifier_is_the_handlers_400(api, method, path):
    resp = api.request(method, path, raw=b'[]')
    assert resp.status == 400, resp
    assert resp.fault == 'Missing argument: "ident"'
    assert versioned(resp)


def test_json_suffix_is_part_of_the_identifier(api):
    resp = api.get('/v1/goals/dummy.json')
    assert resp.status == 404, resp
    assert resp.fault == 'Goal dummy.json could not be found'


def test_route_words_are_identifiers_where_an_identifier_goes(api):
    assert api.get('/v1/goals/audits').fault == (
        'Goal audits could not be found')
    assert api.get('/v1/audits/start').fault == (
        'Audit start could not be found')
    assert api.request('DELETE', '/v1/action_plans/start').fault == (
        'Expected a uuid but received start.')


def test_identifier_from_the_query_string(api):
    # Where the path has none, a query parameter of its name gives it.
    resp = api.delete('/v1/audits?ident=nowhere')
    assert resp.status == 404, resp
    assert resp.fault == 'Audit nowhere could not be found'
    # Where the path has one, the parameter is dropped.
    assert api.get('/v1/goals/dummy?ident=x').status == 200
    # A list takes no identifier.
    resp = api.get('/v1/goals?ident=dummy')
    assert resp.status == 400, resp
    assert resp.fault.startswith('Unknown query parameter(s): ident.')


def test_self_query_parameter_is_ignored(api):
    assert api.get('/v1/goals?self=1').status == 200
    assert api.get('/v1/goals/dummy?self=1').status == 200


@pytest.mark.parametrize('method, path, status', [
    ('GET', '/v1/goals?_method=delete', 405),
    ('GET', '/v1/goals?_method=put', 405),
    ('GET', '/v1/goals?_method=post', 405),
    ('POST', '/v1/goals?_method=patch', 405),
    ('POST', '/v1/audits?_method=patch', 400),
])
def test_method_override_parameter(api, method, path, status):
    resp = api.request(method, path)
    assert resp.status == status, resp


def test_method_override_routes_and_stays_a_parameter(api):
    resp = api.request('POST', '/v1/audits/nowhere?_method=delete')
    assert resp.status == 404, resp
    assert resp.fault == 'Audit nowhere could not be found'
    resp = api.request('POST', '/v1/goals?_method=get')
    assert resp.status == 400, resp
    assert resp.fault.startswith('Unknown query parameter(s): _method.')


def test_bookmarks_reach_every_collection(api):
    for name in ('goals', 'strategies', 'audit_templates', 'audits',
                 'action_plans', 'actions', 'scoring_engines', 'services'):
        resp = api.get('/' + name)
        assert resp.status == 200, (name, resp)
        assert name in resp.json


def test_root_is_unversioned_and_v1_versioned(api):
    root = api.get('/')
    assert root.status == 200 and not versioned(root)
    assert root.json['versions'][0]['id'] == 'v1'
    for path in ('/v1', '/v1/', '//v1'):
        resp = api.get(path)
        assert resp.status == 200 and versioned(resp), path
        assert resp.json['id'] == 'v1'


@pytest.mark.parametrize('method, path', [
    ('GET', '/v1/goals/%ff'), ('GET', '/v1/goals?limit=%ff'),
    ('POST', '/v1/audits?%ff=1'), ('DELETE', '/%ff'),
])
def test_path_or_query_not_utf8_is_plain_400(api, method, path):
    resp = api.request(method, path)
    assert resp.status == 400, resp
    assert inner(resp) == {'code': 400, 'title': 'Bad Request',
                           'description': ''}
    assert not versioned(resp)


def test_nul_in_a_query_the_handler_does_not_read(api):
    assert api.get('/v1?x=%00').status == 200
    assert api.get('/v1/goals?x=%00').status == 400


@pytest.mark.parametrize('method', ['GET', 'POST', 'PATCH'])
def test_more_empty_segments_than_identifiers_before_a_collection(
        api, method):
    # Watcher's first router failed there (IndexError, a 500).
    assert_routing_404(api.request(method, '/v1///goals'))
    assert api.request('HEAD', '/v1///goals').status == 404
