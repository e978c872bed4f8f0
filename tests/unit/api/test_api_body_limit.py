"""Request bodies over [oslo_middleware] max_request_body_size get a 413
in Watcher's format, with or without a Content-Length, before anything
reads them."""

import io
import json

import pytest
import webob

from watcher_ha.conf import CONF

DEFAULT_LIMIT = 262144


def audit_padded_to(size):
    """A valid audit body, padded with blanks to ``size`` bytes."""
    body = json.dumps({'audit_type': 'ONESHOT', 'goal': 'dummy',
                       'name': 'padded'}).encode()
    return body[:-1] + b' ' * (size - len(body)) + b'}'


def chunked_post(api, path, raw):
    """POST ``raw`` without Content-Length, as a chunked upload arrives."""
    req = webob.Request.blank(path, method='POST',
                              content_type='application/json')
    req.body_file = io.BytesIO(raw)
    req.environ['HTTP_TRANSFER_ENCODING'] = 'chunked'
    assert req.content_length is None
    return req.get_response(api.app)


def assert_too_large(status, headers, body, limit=DEFAULT_LIMIT):
    assert status == 413
    assert headers['Content-Type'] == 'application/json'
    fault = json.loads(json.loads(body)['error_message'])
    assert fault == {
        'faultcode': 'Client', 'debuginfo': None,
        'faultstring': 'The request body is larger than %d bytes, the most '
                       'this API accepts; send a smaller body (operators '
                       'set the limit with [oslo_middleware] '
                       'max_request_body_size).' % limit}


@pytest.fixture
def limit(config):
    return lambda size: config.config(group='oslo_middleware',
                                      max_request_body_size=size)


def test_default_limit():
    assert CONF.oslo_middleware.max_request_body_size == DEFAULT_LIMIT


def test_body_over_the_limit_is_refused_unread(api):
    # Valid JSON: without the limit the audit would be created.
    resp = api.request('POST', '/v1/audits',
                       raw=audit_padded_to(DEFAULT_LIMIT + 1))
    assert_too_large(resp.status, resp.headers, resp.body)
    assert api.get('/v1/audits').json['audits'] == []


def test_chunked_body_over_the_limit_is_refused(api):
    resp = chunked_post(api, '/v1/audits',
                        audit_padded_to(DEFAULT_LIMIT + 1))
    assert_too_large(resp.status_int, resp.headers, resp.body)
    assert api.get('/v1/audits').json['audits'] == []


def test_webhook_with_chunked_body_over_the_limit_is_refused(api):
    resp = chunked_post(api, '/v1/webhooks/some-audit',
                        b'{"a": "%s"}' % (b'x' * DEFAULT_LIMIT))
    assert_too_large(resp.status_int, resp.headers, resp.body)


def test_body_at_the_limit_is_served(api):
    resp = api.request('POST', '/v1/audits',
                       raw=audit_padded_to(DEFAULT_LIMIT))
    assert resp.status == 201, resp
    resp = chunked_post(api, '/v1/audit_templates', json.dumps(
        {'name': 'tpl', 'goal': 'dummy'}).encode())
    assert resp.status_int == 201, resp


def test_limit_is_configurable(api, limit):
    limit(1024)
    resp = api.request('POST', '/v1/audits', raw=audit_padded_to(1025))
    assert_too_large(resp.status, resp.headers, resp.body, limit=1024)
    resp = chunked_post(api, '/v1/audits', audit_padded_to(1025))
    assert_too_large(resp.status_int, resp.headers, resp.body, limit=1024)
    assert api.request('POST', '/v1/audits',
                       raw=audit_padded_to(1024)).status == 201
