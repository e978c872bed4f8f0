"""The simulator's Keystone against a real Keystone 30 (from PyPI, run
beside it): the same requests, by the same user, get the same status
codes, headers and bodies of the same shape (the same keys, nested, with
values of the same JSON types), and the same refusals (401s with the same
message and WWW-Authenticate). Only values differ: ids, times, and what
is in the catalog."""

import json
import os

import pytest
import requests

from tests import served
from tests.functional import real_keystone

pytestmark = pytest.mark.functional

ADMIN = {'name': 'admin', 'password': 'admin', 'domain': {'name': 'Default'}}
PROJECT = {'project': {'name': 'admin', 'domain': {'id': 'default'}}}
# A request with no token sends none (conftest.py adds the tests' own
# otherwise).
NO_TOKEN = {'X-Auth-Token': None}


def password(scope=None, **user):
    auth = {'identity': {'methods': ['password'],
                         'password': {'user': dict(ADMIN, **user)}}}
    if scope is not None:
        auth['scope'] = scope
    return {'auth': auth}


class Script:
    """The requests, run against one Keystone: {label: reply}."""

    def __init__(self, url):
        self.base = url + '/identity'
        self.replies = {}

    def send(self, label, method, path, body=None, **headers):
        resp = requests.request(method, self.base + path, json=body,
                                headers=dict(NO_TOKEN, **headers),
                                timeout=60)
        self.replies[label] = resp
        return resp

    def run(self):
        admin = self.send('project token', 'POST', '/v3/auth/tokens',
                          password(PROJECT)).headers['X-Subject-Token']
        unscoped = self.send('unscoped token', 'POST', '/v3/auth/tokens',
                             password()).headers['X-Subject-Token']
        self.send('system token', 'POST', '/v3/auth/tokens',
                  password({'system': {'all': True}}))
        self.send('rescoped token', 'POST', '/v3/auth/tokens', {'auth': {
            'identity': {'methods': ['token'], 'token': {'id': unscoped}},
            'scope': PROJECT}})
        for label, body in (
                ('domain scope refused', password({'domain': {
                    'id': 'default'}})),
                ('wrong password', password(password='wrong')),
                ('unknown user', password(name='nobody')),
                ('unknown project', password({'project': {
                    'name': 'nope', 'domain': {'id': 'default'}}})),
                ('unsupported method', {'auth': {'identity': {
                    'methods': ['totp'], 'totp': {}}}}),
                ('no identity', {'auth': {}}),
                ('no method data', {'auth': {'identity': {
                    'methods': ['password']}}}),
                ('user name without domain', {'auth': {'identity': {
                    'methods': ['password'], 'password': {'user': {
                        'name': 'admin', 'password': 'admin'}}}}}),
                ('unknown token method', {'auth': {'identity': {
                    'methods': ['token'], 'token': {'id': 'garbage'}}}})):
            self.send(label, 'POST', '/v3/auth/tokens', body)
        user_id = self.send('validate', 'GET', '/v3/auth/tokens',
                            X_Auth_Token=admin, X_Subject_Token=admin
                            ).json()['token']['user']['id']
        for label, path, headers in (
                ('validate without catalog', '/v3/auth/tokens?nocatalog',
                 {'X-Subject-Token': admin}),
                ('validate an unknown token', '/v3/auth/tokens',
                 {'X-Subject-Token': 'garbage'}),
                ('validate no subject', '/v3/auth/tokens', {}),
                ('user projects', '/v3/users/%s/projects' % user_id, {}),
                ('users', '/v3/users', {}),
                ('user', '/v3/users/' + user_id, {}),
                ('unknown user 404', '/v3/users/nope', {}),
                ('projects', '/v3/projects', {}),
                ('unknown project 404', '/v3/projects/nope', {}),
                ('domains', '/v3/domains', {}),
                ('roles', '/v3/roles', {}),
                ('services', '/v3/services', {}),
                ('endpoints', '/v3/endpoints', {}),
                ('catalog', '/v3/auth/catalog', {})):
            self.send(label, 'GET', path, X_Auth_Token=admin, **headers)
        for label, path in (('auth projects', '/v3/auth/projects'),
                            ('auth domains', '/v3/auth/domains'),
                            ('auth system', '/v3/auth/system'),
                            ('unscoped catalog', '/v3/auth/catalog')):
            self.send(label, 'GET', path, X_Auth_Token=unscoped)
        self.send('validate by a forged token', 'GET', '/v3/auth/tokens',
                  X_Auth_Token='garbage', X_Subject_Token=admin)
        self.send('validate with no token', 'GET', '/v3/auth/tokens',
                  X_Subject_Token=admin)
        self.send('check', 'HEAD', '/v3/auth/tokens', X_Auth_Token=admin,
                  X_Subject_Token=unscoped)
        self.send('revoke', 'DELETE', '/v3/auth/tokens', X_Auth_Token=admin,
                  X_Subject_Token=unscoped)
        self.send('validate a revoked token', 'GET', '/v3/auth/tokens',
                  X_Auth_Token=admin, X_Subject_Token=unscoped)
        self.send('versions', 'GET', '/')
        self.send('version', 'GET', '/v3')
        return self.replies


def shape(value):
    """The keys and JSON types of a body, nested; a list's shape is its
    first item's (lists of one kind of thing here)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


def seen(resp, url):
    """What must be alike in a reply: status, Keystone's headers and the
    body's shape; a 401's and a 403's message too."""
    found = {'status': resp.status_code,
             'subject token': 'X-Subject-Token' in resp.headers,
             'authenticate': resp.headers.get(
                 'WWW-Authenticate', '').replace(url, 'URL')}
    if resp.content:
        body = resp.json()
        found['shape'] = shape(body)
        if resp.status_code in (401, 403):
            found['message'] = body['error']['message']
    return found


@pytest.fixture(scope='module')
def real(tmp_path_factory):
    python, why = real_keystone.python()
    if python is None:
        message = 'Keystone 30 could not be installed: %s' % why
        if os.environ.get('CI') == 'true':
            pytest.fail(message)
        pytest.skip(message)
    with real_keystone.serving(python, tmp_path_factory.mktemp(
            'keystone')) as url:
        yield url


def test_the_simulators_keystone_answers_as_keystone_30(real):
    with served.simulator_serving({'hosts': [], 'servers': []}) as (
            _, ours):
        got = {label: seen(resp, ours)
               for label, resp in Script(ours).run().items()}
    expected = {label: seen(resp, real)
                for label, resp in Script(real).run().items()}
    different = {label: {'keystone': expected[label], 'ours': got[label]}
                 for label in expected if got[label] != expected[label]}
    assert not different, json.dumps(different, indent=1, sort_keys=True)
