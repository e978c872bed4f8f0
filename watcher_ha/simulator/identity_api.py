"""A minimal Keystone v3: password authentication issuing tokens with a
service catalog of this simulator's compute, placement, bare metal and
block storage endpoints."""

import datetime
import secrets
import threading

from watcher_ha.simulator import web

TOKEN_HOURS = 8


class IdentityAPI(web.Service):
    prefix = '/identity'
    routes = (
        ('GET', '', 'versions'), ('GET', '/', 'versions'),
        ('GET', '/v3', 'version'), ('GET', '/v3/', 'version'),
        ('POST', '/v3/auth/tokens', 'issue'),
        ('GET', '/v3/auth/tokens', 'check'),
    )

    def __init__(self, simulator):
        super().__init__(simulator)
        self.credentials = simulator.credentials
        self._tokens = {}
        self._lock = threading.Lock()

    def authorize(self, req):
        # Issuing tokens needs none.
        pass

    def error(self, status, message):
        return web.json_response({'error': {
            'code': status, 'message': message,
            'title': {401: 'Unauthorized', 400: 'Bad Request',
                      404: 'Not Found'}.get(status, 'Error')}}, status)

    def valid(self, token):
        with self._lock:
            expires = self._tokens.get(token)
        return expires is not None and expires > datetime.datetime.now(
            datetime.timezone.utc)

    def _version(self, req):
        return {'id': 'v3.14', 'status': 'stable',
                'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self',
                           'href': req.host_url + self.prefix + '/v3/'}],
                'media-types': [{'base': 'application/json',
                                 'type': 'application/vnd.openstack.'
                                         'identity-v3+json'}]}

    def versions(self, req, version):
        return 300, {'versions': {'values': [self._version(req)]}}

    def version(self, req, version):
        return 200, {'version': self._version(req)}

    def issue(self, req, version):
        auth = web.body_of(req).get('auth') or {}
        identity = auth.get('identity') or {}
        if 'password' not in identity.get('methods', ()):
            raise web.Reply(400, 'Only password authentication is offered')
        user = (identity.get('password') or {}).get('user') or {}
        expected = self.credentials
        domain = (user.get('domain') or {})
        if (user.get('name') != expected['username']
                or user.get('password') != expected['password']
                or domain.get('name', domain.get('id', 'default')).lower()
                not in (expected['domain'].lower(), 'default')):
            raise web.Reply(401, 'The request you have made requires '
                                 'authentication.')
        token = secrets.token_hex(16)
        now = datetime.datetime.now(datetime.timezone.utc)
        expires = now + datetime.timedelta(hours=TOKEN_HOURS)
        with self._lock:
            self._tokens[token] = expires
        base = req.host_url
        catalog = [self._service('compute', 'nova',
                                 base + '/compute/v2.1'),
                   self._service('placement', 'placement',
                                 base + '/placement'),
                   self._service('baremetal', 'ironic',
                                 base + '/baremetal'),
                   # As devstack registers Cinder now: no project id in
                   # the URL.
                   self._service('block-storage', 'cinder',
                                 base + '/volume/v3'),
                   self._service('identity', 'keystone',
                                 base + '/identity')]
        body = {'token': {
            'methods': ['password'],
            'user': {'id': 'admin-user', 'name': expected['username'],
                     'domain': {'id': 'default', 'name': expected['domain']},
                     'password_expires_at': None},
            'project': {'id': 'admin-project', 'name': expected['project'],
                        'domain': {'id': 'default',
                                   'name': expected['domain']}},
            'roles': [{'id': 'admin-role', 'name': 'admin'},
                      {'id': 'reader-role', 'name': 'reader'}],
            'catalog': catalog, 'audit_ids': [secrets.token_hex(8)],
            'issued_at': now.strftime('%Y-%m-%dT%H:%M:%S.000000Z'),
            'expires_at': expires.strftime('%Y-%m-%dT%H:%M:%S.000000Z'),
            'is_domain': False}}
        return 201, body, {'X-Subject-Token': token}

    def check(self, req, version):
        if not self.valid(req.headers.get('X-Subject-Token', '')):
            raise web.Reply(404, 'Could not find token')
        return 200, {'token': {'methods': ['password']}}

    @staticmethod
    def _service(kind, name, url):
        return {'type': kind, 'name': name, 'id': name + '-id',
                'endpoints': [{'id': '%s-%s' % (name, interface),
                               'interface': interface,
                               'region': 'RegionOne',
                               'region_id': 'RegionOne', 'url': url}
                              for interface in ('public', 'internal',
                                                'admin')]}
