"""The API with ``auth_strategy = keystone``: tokens and policy defaults.

keystonemiddleware's own ``AuthTokenFixture`` stands in for Keystone: it
registers tokens (with roles) that the real ``AuthProtocol`` accepts, and
rejects every other token as Keystone would. Everything of ours -- the
``AuthTokenMiddleware``, the context hook, oslo.policy with the default
rules, the handlers and a migrated SQLite database -- runs for real.
"""

import json
import os
import subprocess
import sys
import uuid

import pytest
from keystoneauth1 import fixture as ks_fixture
import sqlalchemy as sa
from keystonemiddleware import auth_token
from keystonemiddleware import fixture as ksm_fixture

from tests.helpers.in_process import Client
from watcher_ha.conf import CONF
from watcher_ha.db import models
from watcher_ha.policies import policy

# Only put in the WWW-Authenticate header of a 401; never contacted.
WWW_AUTHENTICATE_URI = 'http://keystone.invalid:5000/v3'

RESOURCES = ('goals', 'strategies', 'audit_templates', 'audits',
             'action_plans', 'actions', 'scoring_engines', 'services')


def policy_message(rule):
    return "Policy doesn't allow %s to be performed." % rule


class Tokens:
    """Valid tokens keystonemiddleware accepts, one per kind of user."""

    def __init__(self, fixture):
        self.fixture = fixture
        self.project_id = uuid.uuid4().hex
        # Role lists as keystone issues them, implied roles included
        # (admin implies member implies reader).
        self.admin = self._add(fixture, ['admin', 'member', 'reader'])
        self.reader = self._add_system(fixture, ['reader'])
        self.member = self._add(fixture, ['member', 'reader'])
        self.service = self._add(fixture, ['service'])

    def _add_system(self, fixture, roles):
        """A system-scoped token: a cloud-wide reader."""
        token = ks_fixture.V3Token(user_id=uuid.uuid4().hex,
                                   user_name='auditor',
                                   user_domain_id='default')
        token.set_system_scope()
        for role in roles:
            token.add_role(name=role)
        return fixture.add_token(token)

    def _add(self, fixture, roles):
        token_id = uuid.uuid4().hex
        fixture.add_token_data(
            token_id=token_id, user_id=uuid.uuid4().hex, user_name='user',
            user_domain_id='default', project_id=self.project_id,
            project_name='project', project_domain_id='default',
            role_list=roles)
        return token_id


@pytest.fixture
def keystone(db, config):
    """``auth_strategy = keystone`` with tokens registered in
    keystonemiddleware's test fixture; configuration restored after."""
    for group, opts in auth_token.list_opts():
        CONF.register_opts(opts, group=group)
    config.config(auth_strategy='keystone')
    config.config(group='keystone_authtoken',
                  www_authenticate_uri=WWW_AUTHENTICATE_URI)
    fixture = ksm_fixture.AuthTokenFixture()
    fixture.setUp()
    policy.reset()
    try:
        yield Tokens(fixture)
    finally:
        fixture.cleanUp()
        policy.reset()


def build_client():
    from watcher_ha.api import app
    return Client(app.setup_app(CONF))


@pytest.fixture
def api(keystone):
    return build_client()


def call(api, method, path, token=None, body=None, version=None):
    headers = {'X-Auth-Token': token} if token else {}
    return api.request(method, path, body=body, headers=headers,
                       version=version)


def assert_policy_forbidden(resp, rule):
    assert resp.status == 403, resp
    assert resp.headers['Content-Type'].startswith('application/json')
    assert set(resp.json) == {'error_message'}
    assert json.loads(resp.json['error_message']) == {
        'faultcode': 'Client',
        'faultstring': policy_message(rule),
        'debuginfo': None,
    }


def assert_unauthorized(resp):
    assert resp.status == 401, resp
    assert resp.headers['Content-Type'].startswith('application/json')
    assert resp.headers['WWW-Authenticate'] == (
        'Keystone uri="%s"' % WWW_AUTHENTICATE_URI)
    # keystonemiddleware answers before the request reaches Watcher, as in
    # Watcher (whose error formatting sits inside auth_token): its body.
    assert resp.json == {'error': {
        'code': 401, 'title': 'Unauthorized',
        'message': 'The request you have made requires authentication.'}}


@pytest.fixture
def seeded(api, keystone, migrated):
    """One row of every resource, made by the admin (and, for what the API
    cannot create, by SQL as the decision engine would)."""
    admin = keystone.admin
    template = call(api, 'POST', '/v1/audit_templates', admin,
                    {'name': 'at-seed', 'goal': 'dummy'})
    assert template.status == 201, template
    audit = call(api, 'POST', '/v1/audits', admin,
                 {'name': 'audit-seed', 'audit_type': 'EVENT',
                  'goal': 'dummy'})
    assert audit.status == 201, audit
    plan_uuid, action_uuid = str(uuid.uuid4()), str(uuid.uuid4())
    with migrated.begin() as conn:
        audit_id = conn.execute(
            sa.select(models.Audit.id).where(
                models.Audit.uuid == audit.json['uuid'])).scalar_one()
        plan_id = conn.execute(sa.insert(models.ActionPlan).values(
            uuid=plan_uuid, audit_id=audit_id, state='RECOMMENDED',
            global_efficacy=[], created_at=models.utcnow(),
            version=1)).inserted_primary_key[0]
        conn.execute(sa.insert(models.Action).values(
            uuid=action_uuid, action_plan_id=plan_id, action_type='nop',
            input_parameters={'message': 'hi'}, state='PENDING',
            parents=[], created_at=models.utcnow(), version=1))
        service_id = conn.execute(sa.insert(models.Service).values(
            name='watcher-ha-decision-engine', host='node-1',
            last_seen_up=models.utcnow(),
            created_at=models.utcnow())).inserted_primary_key[0]
    goals = call(api, 'GET', '/v1/goals', admin).json['goals']
    strategies = call(api, 'GET', '/v1/strategies', admin).json['strategies']
    engines = call(api, 'GET', '/v1/scoring_engines',
                   admin).json['scoring_engines']
    assert goals and strategies and engines
    return {
        'goals': goals[0]['uuid'],
        'strategies': strategies[0]['uuid'],
        'audit_templates': template.json['uuid'],
        'audits': audit.json['uuid'],
        'action_plans': plan_uuid,
        'actions': action_uuid,
        'scoring_engines': engines[0]['uuid'],
        'services': service_id,
    }


# -- authentication ----------------------------------------------------------

@pytest.mark.parametrize('path', ['/v1/goals', '/v1/audits',
                                  '/v1/audits/detail', '/v1/services'])
def test_no_token_is_401(api, path):
    assert_unauthorized(call(api, 'GET', path))


def test_no_token_write_is_401(api):
    assert_unauthorized(call(api, 'POST', '/v1/audits', body={
        'audit_type': 'ONESHOT', 'goal': 'dummy'}))


def test_invalid_token_is_401(api):
    assert_unauthorized(call(api, 'GET', '/v1/goals', uuid.uuid4().hex))
    assert_unauthorized(call(api, 'GET', '/v1/audits', 'not-a-token'))


def test_expired_token_is_401(api, keystone):
    expired = uuid.uuid4().hex
    keystone.fixture.add_token_data(
        token_id=expired, expires='2000-01-01T00:00:00Z',
        user_id=uuid.uuid4().hex, project_id=keystone.project_id,
        role_list=['admin'])
    assert_unauthorized(call(api, 'GET', '/v1/goals', expired))


@pytest.mark.parametrize('path', ['/', '/v1', '/v1/'])
def test_version_documents_need_no_token(api, path):
    resp = call(api, 'GET', path)
    assert resp.status == 200, resp
    assert resp.json


def test_identity_headers_from_the_client_are_not_trusted(api):
    resp = api.request('GET', '/v1/goals', headers={
        'X-Roles': 'admin', 'X-Identity-Status': 'Confirmed',
        'X-User-Id': 'forged', 'X-Project-Id': 'forged'})
    assert_unauthorized(resp)


def test_roles_come_from_the_token_not_the_client(api, keystone):
    # keystonemiddleware replaces X-Roles with the token's roles.
    resp = api.request('POST', '/v1/audits', body={
        'audit_type': 'ONESHOT', 'goal': 'dummy'}, headers={
        'X-Auth-Token': keystone.reader, 'X-Roles': 'admin',
        'X-Is-Admin-Project': 'True'})
    assert_policy_forbidden(resp, 'audit:create')


# -- reader ------------------------------------------------------------------

@pytest.mark.parametrize('resource', RESOURCES)
def test_reader_lists_and_shows(api, keystone, seeded, resource):
    token = keystone.reader
    listed = call(api, 'GET', '/v1/%s' % resource, token)
    assert listed.status == 200, listed
    assert listed.json[resource]
    detail = call(api, 'GET', '/v1/%s/detail' % resource, token)
    assert detail.status == 200, detail
    shown = call(api, 'GET', '/v1/%s/%s' % (resource, seeded[resource]),
                 token)
    assert shown.status == 200, shown


def test_reader_may_not_create_audit_template(api, keystone):
    resp = call(api, 'POST', '/v1/audit_templates', keystone.reader,
                {'name': 'at-reader', 'goal': 'dummy'})
    assert_policy_forbidden(resp, 'audit_template:create')


def test_reader_may_not_create_audit(api, keystone):
    resp = call(api, 'POST', '/v1/audits', keystone.reader,
                {'audit_type': 'ONESHOT', 'goal': 'dummy'})
    assert_policy_forbidden(resp, 'audit:create')


def test_reader_may_not_change_or_delete(api, keystone, seeded):
    reader, admin = keystone.reader, keystone.admin
    audit = '/v1/audits/%s' % seeded['audits']
    template = '/v1/audit_templates/%s' % seeded['audit_templates']
    plan = '/v1/action_plans/%s' % seeded['action_plans']
    rename = [{'op': 'replace', 'path': '/name', 'value': 'renamed'}]
    assert_policy_forbidden(call(api, 'PATCH', audit, reader, rename),
                            'audit:update')
    assert_policy_forbidden(call(api, 'PATCH', template, reader, rename),
                            'audit_template:update')
    assert_policy_forbidden(
        call(api, 'PATCH', plan, reader,
             [{'op': 'replace', 'path': '/state', 'value': 'PENDING'}]),
        'action_plan:update')
    assert_policy_forbidden(call(api, 'DELETE', audit, reader),
                            'audit:delete')
    assert_policy_forbidden(call(api, 'DELETE', template, reader),
                            'audit_template:delete')
    assert_policy_forbidden(call(api, 'DELETE', plan, reader),
                            'action_plan:delete')
    # Nothing changed.
    assert call(api, 'GET', audit, admin).json['name'] == 'audit-seed'
    assert call(api, 'GET', template, admin).json['name'] == 'at-seed'
    assert call(api, 'GET', plan, admin).json['state'] == 'RECOMMENDED'


# -- member: a project member (and so a project reader), not a system reader -

@pytest.mark.parametrize('resource,rule', [
    ('goals', 'goal:get_all'),
    ('audits', 'audit:get_all'),
    ('audit_templates', 'audit_template:get_all'),
    ('services', 'service:get_all'),
])
def test_member_may_not_list(api, keystone, resource, rule):
    resp = call(api, 'GET', '/v1/%s' % resource, keystone.member)
    assert_policy_forbidden(resp, rule)


def test_member_may_not_show_or_write(api, keystone, seeded):
    member = keystone.member
    assert_policy_forbidden(
        call(api, 'GET', '/v1/audits/%s' % seeded['audits'], member),
        'audit:get')
    assert_policy_forbidden(
        call(api, 'POST', '/v1/audits', member,
             {'audit_type': 'ONESHOT', 'goal': 'dummy'}),
        'audit:create')


# -- authorization comes first -----------------------------------------------

# A forbidden caller learns nothing from a route: not whether a row exists
# (404), not what its body was worth (400). Every handler authorizes
# before it reads the body or looks a row up.

# No row has it (fixed: the test ids name it, and every pytest-xdist
# worker must collect the same tests).
NOWHERE = 'fa4c898e-39ec-4aca-974c-a84c09eca1f2'
NOT_JSON = b'{"not": json'

# (method, path, microversion, rule): one of each kind of route.
ROUTES = [
    ('GET', '/v1/goals/' + NOWHERE, None, 'goal:get'),
    ('GET', '/v1/strategies/' + NOWHERE, None, 'strategy:get'),
    ('GET', '/v1/strategies/%s/state' % NOWHERE, None, 'strategy:state'),
    ('GET', '/v1/scoring_engines/' + NOWHERE, None, 'scoring_engine:get'),
    ('GET', '/v1/services/999999', None, 'service:get'),
    ('GET', '/v1/audit_templates/' + NOWHERE, None, 'audit_template:get'),
    ('POST', '/v1/audit_templates', None, 'audit_template:create'),
    ('PATCH', '/v1/audit_templates/' + NOWHERE, None,
     'audit_template:update'),
    ('DELETE', '/v1/audit_templates/' + NOWHERE, None,
     'audit_template:delete'),
    ('GET', '/v1/audits/' + NOWHERE, None, 'audit:get'),
    ('POST', '/v1/audits', None, 'audit:create'),
    ('PATCH', '/v1/audits/' + NOWHERE, None, 'audit:update'),
    ('DELETE', '/v1/audits/' + NOWHERE, None, 'audit:delete'),
    ('GET', '/v1/action_plans/' + NOWHERE, None, 'action_plan:get'),
    ('POST', '/v1/action_plans/%s/start' % NOWHERE, None,
     'action_plan:start'),
    ('PATCH', '/v1/action_plans/' + NOWHERE, None, 'action_plan:update'),
    ('GET', '/v1/action_plans/%s/what_if' % NOWHERE, None,
     'action_plan:what_if'),
    ('DELETE', '/v1/action_plans/' + NOWHERE, None, 'action_plan:delete'),
    ('GET', '/v1/actions/' + NOWHERE, None, 'action:get'),
    ('PATCH', '/v1/actions/' + NOWHERE, '1.5', 'action:update'),
    ('PATCH', '/v1/actions/' + NOWHERE, '1.0', 'action:update'),
    ('GET', '/v1/data_model?data_model_type=storage&audit_uuid=x', '1.3',
     'data_model:get_all'),
    ('POST', '/v1/webhooks/' + NOWHERE, '1.4', 'webhook:trigger'),
    ('POST', '/v1/webhooks/no-such-audit', '1.4', 'webhook:trigger'),
]


@pytest.mark.parametrize('method,path,version,rule', ROUTES)
def test_forbidden_before_body_or_lookup(api, keystone, method, path,
                                         version, rule):
    """A project member (allowed nothing) gets the policy's 403 for a row
    that does not exist, with a body that is not JSON."""
    resp = api.request(method, path, version=version,
                       raw=NOT_JSON if method in ('POST', 'PATCH') else None,
                       headers={'X-Auth-Token': keystone.member})
    assert_policy_forbidden(resp, rule)


# -- admin -------------------------------------------------------------------

def test_admin_creates_changes_and_deletes(api, keystone):
    admin = keystone.admin
    template = call(api, 'POST', '/v1/audit_templates', admin,
                    {'name': 'at-admin', 'goal': 'dummy',
                     'strategy': 'dummy'})
    assert template.status == 201, template
    template_path = '/v1/audit_templates/%s' % template.json['uuid']

    audit = call(api, 'POST', '/v1/audits', admin,
                 {'name': 'audit-admin', 'audit_type': 'ONESHOT',
                  'audit_template_uuid': template.json['uuid']})
    assert audit.status == 201, audit
    audit_path = '/v1/audits/%s' % audit.json['uuid']

    patched = call(api, 'PATCH', template_path, admin,
                   [{'op': 'replace', 'path': '/description',
                     'value': 'changed'}])
    assert patched.status == 200, patched
    assert patched.json['description'] == 'changed'

    patched = call(api, 'PATCH', audit_path, admin,
                   [{'op': 'replace', 'path': '/name',
                     'value': 'audit-renamed'}])
    assert patched.status == 200, patched
    assert patched.json['name'] == 'audit-renamed'

    # Watcher deletes only audits that are done: cancel it first.
    cancelled = call(api, 'PATCH', audit_path, admin,
                     [{'op': 'replace', 'path': '/state',
                       'value': 'CANCELLED'}])
    assert cancelled.status == 200, cancelled
    assert cancelled.json['state'] == 'CANCELLED'

    deleted = call(api, 'DELETE', audit_path, admin)
    assert deleted.status == 204, deleted
    assert call(api, 'GET', audit_path, admin).status == 404
    deleted = call(api, 'DELETE', template_path, admin)
    assert deleted.status == 204, deleted
    assert call(api, 'GET', template_path, admin).status == 404


@pytest.mark.parametrize('resource', RESOURCES)
def test_admin_reads_everything(api, keystone, seeded, resource):
    shown = call(api, 'GET', '/v1/%s/%s' % (resource, seeded[resource]),
                 keystone.admin)
    assert shown.status == 200, shown


# -- webhooks ----------------------------------------------------------------

# What an aodh alarm action posts.
ALARM = {'alarm_name': 'cpu-high', 'current': 'alarm', 'previous': 'ok',
         'reason': 'Transition to alarm'}


def webhook(api, token, audit_uuid):
    return call(api, 'POST', '/v1/webhooks/%s' % audit_uuid, token,
                body=ALARM, version='1.4')


def test_service_role_triggers_webhook(api, keystone, seeded):
    resp = webhook(api, keystone.service, seeded['audits'])
    assert resp.status == 202, resp


def test_admin_triggers_webhook(api, keystone, seeded):
    resp = webhook(api, keystone.admin, seeded['audits'])
    assert resp.status == 202, resp


def test_reader_may_not_trigger_webhook(api, keystone, seeded):
    assert_policy_forbidden(webhook(api, keystone.reader, seeded['audits']),
                            'webhook:trigger')


def test_webhook_needs_a_token_by_default(api, seeded):
    assert_unauthorized(webhook(api, None, seeded['audits']))


def test_webhook_without_auth_when_disabled(keystone, seeded, config):
    config.config(enable_webhooks_auth=False, group='api')
    api = build_client()
    resp = webhook(api, None, seeded['audits'])
    assert resp.status == 202, resp
    # The rest of the API still needs a token.
    assert_unauthorized(call(api, 'GET', '/v1/audits'))
    assert_unauthorized(call(api, 'DELETE',
                             '/v1/audits/%s' % seeded['audits']))


# -- sample policy file ------------------------------------------------------

def test_sample_policy_file_lists_the_rules(tmp_path):
    generator = os.path.join(os.path.dirname(sys.executable),
                             'oslopolicy-sample-generator')
    output = tmp_path / 'policy.yaml'
    subprocess.run([generator, '--namespace', 'watcher_ha',
                    '--output-file', str(output)],
                   check=True, capture_output=True, timeout=120)
    sample = output.read_text()
    for rule in ('"admin_api": "role:admin or role:administrator"',
                 '"reader_api": "(role:reader and system_scope:all) or '
                 'rule:admin_api"',
                 '"audit:create": "rule:admin_api"',
                 '"audit:get_all": "rule:reader_api"',
                 '"webhook:trigger": "rule:admin_or_service_api"',
                 '"goal:get": "rule:reader_api"',
                 '"os_masakari_api:segments:create": "rule:admin_api"',
                 '"os_masakari_api:notifications:create": '
                 '"rule:admin_api"'):
        assert rule in sample, rule
    assert 'POST  /v1/audits' in sample


# -- public routes -----------------------------------------------------------

def test_forged_identity_headers_are_dropped_on_public_routes(keystone):
    """Routes auth_token skips must not carry identities a client made up
    (the webhook passes its context on to the decision engines)."""
    from watcher_ha.api import auth
    seen = {}

    def inner(environ, start_response):
        seen.update(environ)
        start_response('202 Accepted', [])
        return [b'']

    app = auth.AuthTokenMiddleware(inner, CONF, public_webhooks=True)
    forged = {'HTTP_X_ROLES': 'admin', 'HTTP_X_IDENTITY_STATUS': 'Confirmed',
              'HTTP_X_USER_ID': 'forged', 'HTTP_X_PROJECT_ID': 'forged',
              'HTTP_X_IS_ADMIN_PROJECT': 'True',
              'HTTP_X_OPENSTACK_REQUEST_ID': 'req-kept'}
    for path in ('/v1/webhooks/some-audit', '/v1', '/'):
        seen.clear()
        environ = dict(forged, PATH_INFO=path, REQUEST_METHOD='POST')
        app(environ, lambda status, headers, exc_info=None: None)
        assert seen['HTTP_X_OPENSTACK_REQUEST_ID'] == 'req-kept'
        assert not {'HTTP_X_ROLES', 'HTTP_X_IDENTITY_STATUS',
                    'HTTP_X_USER_ID', 'HTTP_X_PROJECT_ID',
                    'HTTP_X_IS_ADMIN_PROJECT'} & set(seen), path


# -- the instance-ha API (Masakari's) ----------------------------------------

def masakari_call(api, method, path, token=None, body=None):
    headers = {'OpenStack-API-Version': 'instance-ha 1.3'}
    if token:
        headers['X-Auth-Token'] = token
    return api.request(method, '/instance-ha' + path, body=body,
                       headers=headers)


@pytest.mark.parametrize('path', ['', '/', '/v1', '/v1/', '/healthcheck'])
def test_instance_ha_discovery_needs_no_token(api, path):
    # openstacksdk reads the version document without a token first.
    resp = masakari_call(api, 'GET', path)
    assert resp.status == 200, resp


@pytest.mark.parametrize('method, path', [
    ('GET', '/v1/segments'), ('GET', '/v1/notifications'),
    ('POST', '/v1/notifications'), ('GET', '/v1/versions/v1.0')])
def test_instance_ha_calls_need_a_token(api, method, path):
    assert_unauthorized(masakari_call(api, method, path))


def test_instance_ha_rules_are_masakaris_and_admin_only(api, keystone):
    resp = masakari_call(api, 'GET', '/v1/segments', keystone.member)
    assert resp.status == 403, resp
    assert resp.json == {'forbidden': {
        'code': 403,
        'message': policy_message('os_masakari_api:segments:index')}}
    resp = masakari_call(api, 'POST', '/v1/segments', keystone.reader,
                         body={'segment': {'name': 'x', 'service_type': 'C',
                                           'recovery_method': 'auto'}})
    assert resp.status == 403, resp
    resp = masakari_call(api, 'POST', '/v1/segments', keystone.admin,
                         body={'segment': {'name': 'x', 'service_type': 'C',
                                           'recovery_method': 'auto'}})
    assert resp.status == 201, resp
    # The project in the URL is the token's (Masakari's endpoints carry
    # it), or the request is refused.
    resp = masakari_call(api, 'GET', '/v1/%s/segments' % keystone.project_id,
                         keystone.admin)
    assert [s['name'] for s in resp.json['segments']] == ['x']
    resp = masakari_call(api, 'GET', '/v1/%s/segments' % uuid.uuid4().hex,
                         keystone.admin)
    assert resp.status == 400, resp
