"""The simulator's Keystone as Keystone's real clients use it: tokens
issued for the password and the token methods, scoped or not, with their
roles and catalog; validated (GET /v3/auth/tokens with X-Subject-Token)
with Keystone's full body, checked, revoked; what a user may scope to;
Keystone's refusals (401 with WWW-Authenticate, 404, 400, 403); the
catalog with the endpoints registered beside the simulator's own.
keystoneauth1 and keystonemiddleware run for real against it."""

import datetime

import pytest
import requests
import webob
from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from keystonemiddleware import auth_token
from oslo_config import cfg

from tests import served
from watcher_ha.cmd import simulator as simulator_cmd
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import embedded
from watcher_ha.simulator import simulator

ADMIN = {'name': 'admin', 'password': 'admin', 'domain': {'name': 'Default'}}
ADMIN_PROJECT = {'project': {'name': 'admin', 'domain': {'id': 'default'}}}
SPEC = {
    'hosts': [{'name': 'compute-0', 'vcpus': 8, 'memory_mb': 32768,
               'disk_gb': 500}],
    'users': [{'name': 'demo', 'password': 'secret', 'project': 'demo',
               'roles': ['member']}],
    'catalog': [
        {'type': 'infra-optim', 'url': 'http://127.0.0.1:9322'},
        {'type': 'instance-ha',
         'url': 'http://127.0.0.1:9322/instance-ha/v1/$(project_id)s'}],
}
TOKEN_KEYS = {'audit_ids', 'expires_at', 'issued_at', 'methods', 'user'}
SCOPED_KEYS = TOKEN_KEYS | {'roles', 'catalog'}


@pytest.fixture
def sim():
    found = simulator.Simulator(SPEC)
    yield found
    found.stop()


def call(sim, method, path, body=None, **headers):
    req = webob.Request.blank('/identity' + path, method=method,
                              headers={k.replace('_', '-'): v
                                       for k, v in headers.items()})
    if body is not None:
        req.json = body
    return req.get_response(sim)


def password_body(user=ADMIN, scope=None):
    auth = {'identity': {'methods': ['password'],
                         'password': {'user': user}}}
    if scope is not None:
        auth['scope'] = scope
    return {'auth': auth}


def issue(sim, user=ADMIN, scope=None):
    resp = call(sim, 'POST', '/v3/auth/tokens', password_body(user, scope))
    assert resp.status_int == 201, resp.text
    return resp.headers['X-Subject-Token'], resp.json['token']


def assert_keystone_error(resp, status, message=None):
    assert resp.status_int == status, resp.text
    assert set(resp.json['error']) >= {'code', 'title', 'message'}
    assert resp.json['error']['code'] == status
    if message is not None:
        assert resp.json['error']['message'] == message
    if status == 401:
        assert resp.headers['WWW-Authenticate'] == (
            'Keystone uri="http://localhost/identity/v3"')


def role_names(token):
    return {role['name'] for role in token['roles']}


# Issuing.

def test_password_project_scoped_token_has_keystones_body(sim):
    token_id, token = issue(sim, scope=ADMIN_PROJECT)
    assert token_id
    assert set(token) == SCOPED_KEYS | {'project', 'is_domain'}
    assert token['methods'] == ['password']
    assert token['project']['name'] == 'admin'
    assert token['project']['domain'] == {'id': 'default',
                                          'name': 'Default'}
    assert token['user']['name'] == 'admin'
    assert token['user']['password_expires_at'] is None
    # keystone-manage bootstrap's admin, with the roles admin implies.
    assert role_names(token) == {'admin', 'manager', 'member', 'reader'}
    issued = datetime.datetime.strptime(token['issued_at'],
                                        '%Y-%m-%dT%H:%M:%S.%fZ')
    expires = datetime.datetime.strptime(token['expires_at'],
                                         '%Y-%m-%dT%H:%M:%S.%fZ')
    assert expires - issued == datetime.timedelta(hours=1)


def test_unscoped_token_has_no_roles_nor_catalog(sim):
    _, token = issue(sim)
    assert set(token) == TOKEN_KEYS


def test_system_scoped_token(sim):
    _, token = issue(sim, scope={'system': {'all': True}})
    assert token['system'] == {'all': True}
    assert 'admin' in role_names(token)
    assert 'project' not in token


def test_the_catalog_lists_registered_endpoints_substituted(sim):
    _, token = issue(sim, scope=ADMIN_PROJECT)
    urls = {service['type']: {e['interface']: e['url']
                              for e in service['endpoints']}
            for service in token['catalog']}
    assert urls['infra-optim']['public'] == 'http://127.0.0.1:9322'
    assert urls['instance-ha']['internal'] == (
        'http://127.0.0.1:9322/instance-ha/v1/' + token['project']['id'])
    assert urls['compute']['admin'] == 'http://localhost/compute/v2.1'
    assert set(urls) >= {'identity', 'placement', 'baremetal',
                         'block-storage'}
    names = {s['type']: s['name'] for s in token['catalog']}
    assert (names['infra-optim'], names['instance-ha']) == ('watcher',
                                                            'masakari')


def test_token_method_rescopes_an_unscoped_token(sim):
    unscoped_id, unscoped = issue(sim)
    resp = call(sim, 'POST', '/v3/auth/tokens', {'auth': {
        'identity': {'methods': ['token'], 'token': {'id': unscoped_id}},
        'scope': ADMIN_PROJECT}})
    assert resp.status_int == 201, resp.text
    token = resp.json['token']
    assert resp.headers['X-Subject-Token'] != unscoped_id
    assert token['methods'] == ['token', 'password']
    assert token['expires_at'] == unscoped['expires_at']
    assert token['audit_ids'][1] == unscoped['audit_ids'][0]
    assert token['project']['name'] == 'admin'


def test_a_member_scopes_to_its_project_only(sim):
    demo = {'name': 'demo', 'password': 'secret',
            'domain': {'id': 'default'}}
    _, token = issue(sim, demo, {'project': {'name': 'demo',
                                             'domain': {'id': 'default'}}})
    assert role_names(token) == {'member', 'reader'}
    for scope in (ADMIN_PROJECT, {'system': {'all': True}}):
        resp = call(sim, 'POST', '/v3/auth/tokens',
                    password_body(demo, scope))
        assert_keystone_error(resp, 401)


@pytest.mark.parametrize('body, status, message', [
    (password_body(dict(ADMIN, password='wrong')), 401,
     'The request you have made requires authentication.'),
    (password_body(dict(ADMIN, name='nobody')), 401,
     'The request you have made requires authentication.'),
    (password_body(scope={'project': {'name': 'nope',
                                      'domain': {'id': 'default'}}}), 401,
     'The request you have made requires authentication.'),
    # Bootstrap gives the admin no role on the domain.
    (password_body(scope={'domain': {'id': 'default'}}), 401, None),
    ({'auth': {'identity': {'methods': ['token'],
                            'token': {'id': 'unknown'}}}}, 404,
     'Could not find token: unknown.'),
    ({'auth': {}}, 400, "'identity' is a required property"),
    ({'auth': {'identity': {'methods': ['password']}}}, 400, None),
    (password_body({'name': 'admin', 'password': 'admin'}), 400, None),
])
def test_keystones_refusals_to_issue(sim, body, status, message):
    resp = call(sim, 'POST', '/v3/auth/tokens', body)
    assert_keystone_error(resp, status, message)
    assert 'X-Subject-Token' not in resp.headers


def test_an_unsupported_method_is_a_401_listing_those_offered(sim):
    resp = call(sim, 'POST', '/v3/auth/tokens', {'auth': {'identity': {
        'methods': ['totp'], 'totp': {}}}})
    assert_keystone_error(resp, 401, 'Attempted to authenticate with an '
                                     'unsupported method.')
    assert set(resp.json['error']['identity']['methods']) >= {
        'password', 'token'}


# Validating, checking, revoking.

def test_validation_gives_the_full_token_body(sim):
    admin_id, _ = issue(sim, scope=ADMIN_PROJECT)
    subject_id, issued = issue(sim, scope=ADMIN_PROJECT)
    resp = call(sim, 'GET', '/v3/auth/tokens', X_Auth_Token=admin_id,
                X_Subject_Token=subject_id)
    assert resp.status_int == 200, resp.text
    assert resp.headers['X-Subject-Token'] == subject_id
    assert resp.json['token'] == issued
    bare = call(sim, 'GET', '/v3/auth/tokens?nocatalog',
                X_Auth_Token=admin_id, X_Subject_Token=subject_id)
    assert set(bare.json['token']) == set(issued) - {'catalog'}
    assert call(sim, 'HEAD', '/v3/auth/tokens', X_Auth_Token=admin_id,
                X_Subject_Token=subject_id).status_int == 200


def test_validation_refusals(sim):
    admin_id, _ = issue(sim, scope=ADMIN_PROJECT)
    assert_keystone_error(call(sim, 'GET', '/v3/auth/tokens',
                               X_Subject_Token=admin_id), 401)
    assert_keystone_error(call(sim, 'GET', '/v3/auth/tokens',
                               X_Auth_Token='forged',
                               X_Subject_Token=admin_id), 401)
    assert_keystone_error(call(sim, 'GET', '/v3/auth/tokens',
                               X_Auth_Token=admin_id,
                               X_Subject_Token='forged'), 404,
                          'Could not find token: forged.')
    assert_keystone_error(call(sim, 'GET', '/v3/auth/tokens',
                               X_Auth_Token=admin_id), 404,
                          'No token in the request')


def test_a_member_validates_its_own_tokens_only(sim):
    demo = {'name': 'demo', 'password': 'secret',
            'domain': {'id': 'default'}}
    demo_id, _ = issue(sim, demo, {'project': {'name': 'demo', 'domain': {
        'id': 'default'}}})
    admin_id, _ = issue(sim, scope=ADMIN_PROJECT)
    assert call(sim, 'GET', '/v3/auth/tokens', X_Auth_Token=demo_id,
                X_Subject_Token=demo_id).status_int == 200
    assert_keystone_error(call(sim, 'GET', '/v3/auth/tokens',
                               X_Auth_Token=demo_id,
                               X_Subject_Token=admin_id), 403)


def test_a_revoked_token_no_longer_validates(sim):
    admin_id, _ = issue(sim, scope=ADMIN_PROJECT)
    subject_id, _ = issue(sim, scope=ADMIN_PROJECT)
    assert call(sim, 'DELETE', '/v3/auth/tokens', X_Auth_Token=admin_id,
                X_Subject_Token=subject_id).status_int == 204
    assert_keystone_error(call(sim, 'GET', '/v3/auth/tokens',
                               X_Auth_Token=admin_id,
                               X_Subject_Token=subject_id), 404,
                          'Failed to validate token')
    assert_keystone_error(call(sim, 'GET', '/v3/auth/projects',
                               X_Auth_Token=subject_id), 401)


def test_an_expired_token_no_longer_validates():
    clock = clock_mod.FakeClock()
    sim = simulator.Simulator(dict(SPEC, token_expiration=1), clock=clock)
    try:
        admin_id, _ = issue(sim, scope=ADMIN_PROJECT)
        token_id, _ = issue(sim, scope=ADMIN_PROJECT)
        clock.advance(1.1)
        assert_keystone_error(call(sim, 'GET', '/v3/auth/tokens',
                                   X_Auth_Token=admin_id,
                                   X_Subject_Token=token_id), 401)
    finally:
        sim.stop()


# What a token may scope to; users and projects.

def test_a_users_projects_and_scopes(sim):
    unscoped_id, token = issue(sim)
    user_id = token['user']['id']
    mine = call(sim, 'GET', '/v3/users/%s/projects' % user_id,
                X_Auth_Token=unscoped_id)
    assert mine.status_int == 200, mine.text
    [project] = mine.json['projects']
    assert project['name'] == 'admin'
    assert set(project) >= {'id', 'name', 'domain_id', 'enabled',
                            'is_domain', 'parent_id', 'links'}
    assert call(sim, 'GET', '/v3/auth/projects', X_Auth_Token=unscoped_id
                ).json['projects'] == [project]
    assert call(sim, 'GET', '/v3/auth/system', X_Auth_Token=unscoped_id
                ).json['system'] == [{'all': True}]
    assert call(sim, 'GET', '/v3/auth/domains', X_Auth_Token=unscoped_id
                ).json['domains'] == []
    # An unscoped token has no catalog to fetch.
    assert_keystone_error(call(sim, 'GET', '/v3/auth/catalog',
                               X_Auth_Token=unscoped_id), 403)
    assert_keystone_error(call(sim, 'GET', '/v3/users/nope/projects',
                               X_Auth_Token=unscoped_id), 403)


def test_admin_listings_and_404s(sim):
    admin_id, _ = issue(sim, scope=ADMIN_PROJECT)
    users = call(sim, 'GET', '/v3/users', X_Auth_Token=admin_id).json
    assert sorted(u['name'] for u in users['users']) == ['admin', 'demo']
    projects = call(sim, 'GET', '/v3/projects?name=demo',
                    X_Auth_Token=admin_id).json['projects']
    assert [p['name'] for p in projects] == ['demo']
    roles = call(sim, 'GET', '/v3/roles', X_Auth_Token=admin_id).json
    assert {r['name'] for r in roles['roles']} == {
        'admin', 'manager', 'member', 'reader', 'service'}
    assert_keystone_error(call(sim, 'GET', '/v3/users/nope',
                               X_Auth_Token=admin_id), 404,
                          'Could not find user: nope.')
    assert_keystone_error(call(sim, 'GET', '/v3/projects/nope',
                               X_Auth_Token=admin_id), 404,
                          'Could not find project: nope.')
    assert_keystone_error(call(sim, 'GET', '/v3/users'), 401)


def test_services_and_endpoints_registered_through_the_api(sim):
    admin_id, _ = issue(sim, scope=ADMIN_PROJECT)
    made = call(sim, 'POST', '/v3/services', {'service': {
        'type': 'metric', 'name': 'gnocchi'}}, X_Auth_Token=admin_id)
    assert made.status_int == 201, made.text
    service_id = made.json['service']['id']
    endpoint = call(sim, 'POST', '/v3/endpoints', {'endpoint': {
        'service_id': service_id, 'interface': 'public',
        'url': 'http://127.0.0.1:8041'}}, X_Auth_Token=admin_id)
    assert endpoint.status_int == 201, endpoint.text
    listed = call(sim, 'GET', '/v3/endpoints?service_id=' + service_id,
                  X_Auth_Token=admin_id).json['endpoints']
    assert [e['url'] for e in listed] == ['http://127.0.0.1:8041']
    _, token = issue(sim, scope=ADMIN_PROJECT)
    assert 'metric' in {s['type'] for s in token['catalog']}
    assert_keystone_error(call(sim, 'POST', '/v3/endpoints', {'endpoint': {
        'service_id': 'nope', 'interface': 'public', 'url': 'http://x'}},
        X_Auth_Token=admin_id), 400)
    member_id, _ = issue(sim, {'name': 'demo', 'password': 'secret',
                               'domain': {'id': 'default'}},
                         {'project': {'name': 'demo',
                                      'domain': {'id': 'default'}}})
    for path in ('/v3/services', '/v3/endpoints'):
        assert_keystone_error(call(sim, 'GET', path,
                                   X_Auth_Token=member_id), 403)
    assert_keystone_error(call(sim, 'POST', '/v3/services', {'service': {
        'type': 'rogue'}}, X_Auth_Token=member_id), 403,
        'You are not authorized to perform the requested action.')


# The real clients, over HTTP.

@pytest.fixture(scope='module')
def keystone_url():
    with served.simulator_serving(SPEC) as (_, url):
        yield url + '/identity/v3'


def test_keystoneauth_password_and_token_auth(keystone_url):
    password = v3.Password(auth_url=keystone_url, username='admin',
                           password='admin', user_domain_name='Default',
                           project_name='admin',
                           project_domain_name='Default')
    session = ks_session.Session(auth=password)
    access = password.get_access(session)
    assert access.project_name == 'admin'
    assert set(access.role_names) >= {'admin', 'member', 'reader'}
    assert session.get_endpoint(service_type='infra-optim',
                                interface='public') == (
        'http://127.0.0.1:9322')
    assert session.get_endpoint(service_type='instance-ha').endswith(
        '/instance-ha/v1/' + access.project_id)
    rescoped = v3.Token(auth_url=keystone_url, token=session.get_token(),
                        system_scope='all')
    system = rescoped.get_access(ks_session.Session(auth=rescoped))
    assert system.system_scoped
    assert system._data['token']['methods'] == ['token', 'password']
    with pytest.raises(ks_exceptions.Unauthorized):
        v3.Password(auth_url=keystone_url, username='admin',
                    password='wrong', user_domain_name='Default',
                    project_name='admin', project_domain_name='Default'
                    ).get_token(ks_session.Session())


def _protected(keystone_url, **options):
    seen = {}

    def app(environ, start_response):
        seen.update({key: environ.get(key) for key in (
            'HTTP_X_IDENTITY_STATUS', 'HTTP_X_ROLES', 'HTTP_X_PROJECT_NAME',
            'HTTP_X_USER_NAME')})
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'ok']

    conf = dict({'auth_type': 'password', 'auth_url': keystone_url,
                 'username': 'admin', 'password': 'admin',
                 'project_name': 'admin', 'user_domain_name': 'Default',
                 'project_domain_name': 'Default',
                 'www_authenticate_uri': keystone_url,
                 'delay_auth_decision': False,
                 # Its options (the password plugin's auth_url required
                 # among them) go on a ConfigOpts of its own: registered on
                 # the global one, they would fail every later test of
                 # the process that parses it.
                 'oslo_config_config': cfg.ConfigOpts()}, **options)
    return auth_token.AuthProtocol(app, conf), seen


def test_keystonemiddleware_validates_the_simulators_tokens(keystone_url):
    middleware, seen = _protected(keystone_url)
    token = v3.Password(auth_url=keystone_url, username='demo',
                        password='secret', user_domain_name='Default',
                        project_name='demo', project_domain_name='Default'
                        ).get_token(ks_session.Session())
    resp = webob.Request.blank('/', headers={'X-Auth-Token': token}
                               ).get_response(middleware)
    assert resp.status_int == 200, resp.text
    assert seen['HTTP_X_IDENTITY_STATUS'] == 'Confirmed'
    assert set(seen['HTTP_X_ROLES'].split(',')) == {'member', 'reader'}
    assert (seen['HTTP_X_PROJECT_NAME'], seen['HTTP_X_USER_NAME']) == (
        'demo', 'demo')
    refused = webob.Request.blank('/', headers={'X-Auth-Token': 'forged'}
                                  ).get_response(middleware)
    assert refused.status_int == 401


def test_versions_document(keystone_url):
    root = requests.get(keystone_url[:-len('/v3')], timeout=10)
    assert root.status_code == 300
    [version] = root.json()['versions']['values']
    assert version['id'] == 'v3.14'
    assert requests.get(keystone_url, timeout=10).json()['version'][
        'links'][0]['href'] == keystone_url + '/'


def test_the_simulator_command_registers_endpoints(monkeypatch, tmp_path):
    scenario_path = tmp_path / 'cloud.yaml'
    scenario_path.write_text('hosts: []\nservers: []\n')
    served_with = {}

    class Server:
        def __init__(self, address, app, numthreads):
            served_with['app'] = app

        def prepare(self):
            raise KeyboardInterrupt     # instead of serving

    monkeypatch.setattr(simulator_cmd.wsgi, 'Server', Server)
    # Not this process's SIGTERM handler.
    monkeypatch.setattr(simulator_cmd.signal, 'signal',
                        lambda *args: None)
    with pytest.raises(KeyboardInterrupt):
        simulator_cmd.main([
            '--scenario', str(scenario_path), '--endpoint',
            'infra-optim=http://127.0.0.1:9322', '--endpoint',
            'instance-ha=http://127.0.0.1:9322/instance-ha/v1/'
            '$(project_id)s'])
    catalog = served_with['app'].identity.catalog
    assert {s['type']: s['name'] for s in catalog.services.values()}[
        'instance-ha'] == 'masakari'
    with pytest.raises(SystemExit):
        simulator_cmd.main(['--scenario', str(scenario_path), '--endpoint',
                            'infra-optim'])


def test_the_all_in_one_registers_its_apis_where_they_listen(sim):
    from types import SimpleNamespace
    conf = SimpleNamespace(api=SimpleNamespace(public_endpoint=None),
                           instance_ha=SimpleNamespace(
                               api_path_prefix='/instance-ha'))
    assert embedded.api_url(conf, ('0.0.0.0', 9322)) == (
        'http://127.0.0.1:9322')
    assert embedded.api_url(conf, ('::1', 9322, 0, 0)) == (
        'http://[::1]:9322')
    conf.api.public_endpoint = 'https://api.example.org/'
    assert embedded.api_url(conf, ('0.0.0.0', 9322)) == (
        'https://api.example.org')
    embedded.register_endpoints(sim.identity.catalog,
                                'http://127.0.0.1:9400', conf)
    _, token = issue(sim, scope=ADMIN_PROJECT)
    urls = {s['type']: s['endpoints'][0]['url'] for s in token['catalog']}
    # Registered again: moved, not added.
    assert urls['infra-optim'] == 'http://127.0.0.1:9400'
    assert urls['instance-ha'] == ('http://127.0.0.1:9400/instance-ha/v1/'
                                   + token['project']['id'])
    assert len([s for s in token['catalog']
                if s['type'] == 'infra-optim']) == 1


def test_the_middleware_leaves_the_process_configuration_alone(
        keystone_url):
    """Its auth plugin's options (auth_url, required) registered on the
    global CONF would fail every later test that parses it."""
    _protected(keystone_url)
    with pytest.raises(cfg.NoSuchOptError):
        cfg.CONF['keystone_authtoken']['auth_url']
