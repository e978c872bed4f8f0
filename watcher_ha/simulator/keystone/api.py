"""The simulator's Identity API v3 under /identity: tokens (issue,
validate, check, revoke), what a token may scope to, the catalog, and
read-only listings of users, projects, domains and roles, with services
and endpoints that can also be registered. Keystone's status codes,
headers (X-Subject-Token, WWW-Authenticate) and error bodies."""

import webob.dec

from watcher_ha.simulator import scenario
from watcher_ha.simulator import web
from watcher_ha.simulator.keystone import catalog as catalog_mod
from watcher_ha.simulator.keystone import directory as directory_mod
from watcher_ha.simulator.keystone import tokens as tokens_mod

TITLES = {400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
          404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict'}
# The simulator's own services, at paths of its address (catalog.py).
OWN_SERVICES = (('compute', 'nova', '/compute/v2.1'),
                ('placement', 'placement', '/placement'),
                ('baremetal', 'ironic', '/baremetal'),
                # As devstack registers Cinder now: no project id in the
                # URL.
                ('block-storage', 'cinder', '/volume/v3'),
                # Heat's API with the project in its path, as devstack
                # registers it.
                ('orchestration', 'heat', '/heat-api/v1/$(project_id)s'),
                ('identity', 'keystone', '/identity'))


def forbidden():
    # Keystone names the policy rule only with insecure_debug on.
    return web.Reply(403, 'You are not authorized to perform the requested '
                          'action.')


class IdentityAPI(web.Service):
    prefix = '/identity'
    routes = web.route_table('''
        GET     /                             versions
        GET     /v3/                          version
        POST    /v3/auth/tokens               issue
        GET     /v3/auth/tokens               validate
        HEAD    /v3/auth/tokens               check
        DELETE  /v3/auth/tokens               revoke
        GET     /v3/auth/catalog              auth_catalog
        GET     /v3/auth/projects             auth_projects
        GET     /v3/auth/domains              auth_domains
        GET     /v3/auth/system               auth_system
        GET     /v3/users                     list_users
        GET     /v3/users/{user_id}           show_user
        GET     /v3/users/{user_id}/projects  user_projects
        GET     /v3/projects                  list_projects
        GET     /v3/projects/{project_id}     show_project
        GET     /v3/domains                   list_domains
        GET     /v3/domains/{domain_id}       show_domain
        GET     /v3/roles                     list_roles
        GET     /v3/services                  list_services
        POST    /v3/services                  create_service
        GET     /v3/endpoints                 list_endpoints
        POST    /v3/endpoints                 create_endpoint
    ''')

    def __init__(self, simulator):
        super().__init__(simulator)
        spec = simulator.spec
        self.directory = directory_mod.Directory.from_spec(
            spec, scenario.DEFAULT_CREDENTIALS)
        self.tokens = tokens_mod.Tokens(
            self.directory, spec.get('token_expiration',
                                     tokens_mod.DEFAULT_LIFETIME),
            simulator.clock)
        self.catalog = catalog_mod.Catalog()
        for service_type, name, path in OWN_SERVICES:
            self.catalog.register(service_type, path, name)
        for entry in spec.get('catalog') or ():
            self.catalog.register(entry['type'], entry['url'],
                                  entry.get('name'))

    @webob.dec.wsgify
    def __call__(self, req):
        resp = req.get_response(super().__call__)
        if resp.status_int == 401:
            resp.headers['WWW-Authenticate'] = 'Keystone uri="%s"' % (
                self._url(req))
        return resp

    def authorize(self, req):
        # Each route checks the token it needs (_caller).
        pass

    def error(self, status, message):
        return web.json_response({'error': {
            'code': status, 'message': message,
            'title': TITLES.get(status, 'Error')}}, status)

    def _caller(self, req):
        """The valid token in X-Auth-Token; 401 otherwise."""
        try:
            return self.tokens.validate(req.headers.get('X-Auth-Token'))
        except web.Reply:
            raise directory_mod.unauthorized()

    def _admin(self, req, writes=False):
        """The caller, if an admin (of a project or of the system), or a
        system reader when it only reads; 403 otherwise."""
        caller = self._caller(req)
        if not (caller.has_role('admin') or (
                not writes and caller.system and caller.has_role('reader'))):
            raise forbidden()
        return caller

    def _url(self, req, path=''):
        return req.host_url + self.prefix + '/v3' + path

    # Versions.

    def _version(self, req):
        return {'id': 'v3.14', 'status': 'stable',
                'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self', 'href': self._url(req, '/')}],
                'media-types': [{'base': 'application/json',
                                 'type': 'application/vnd.openstack.'
                                         'identity-v3+json'}]}

    def versions(self, req, version):
        return 300, {'versions': {'values': [self._version(req)]}}

    def version(self, req, version):
        return 200, {'version': self._version(req)}

    # Tokens.

    def _token_body(self, req, token):
        user = token.user
        body = {'methods': list(token.methods),
                'user': {'domain': self._domain_ref(user.domain_id),
                         'id': user.id, 'name': user.name,
                         'password_expires_at': None},
                'audit_ids': list(token.audit_ids),
                'expires_at': tokens_mod.isotime(token.expires_at),
                'issued_at': tokens_mod.isotime(token.issued_at)}
        if token.project is not None:
            body['project'] = {
                'domain': self._domain_ref(token.project.domain_id),
                'id': token.project.id, 'name': token.project.name}
            body['is_domain'] = False
        elif token.domain is not None:
            body['domain'] = self._domain_ref(token.domain.id)
        elif token.system:
            body['system'] = {'all': True}
        if token.scoped:
            body['roles'] = [{'id': r.id, 'name': r.name}
                             for r in token.roles]
            if 'nocatalog' not in req.GET:
                body['catalog'] = self._catalog(req, token)
        return {'token': body}

    def _catalog(self, req, token):
        return self.catalog.for_token(
            req.host_url, token.project.id if token.project else None)

    def _domain_ref(self, domain_id):
        return {'id': domain_id, 'name': self.directory.domain.name}

    def issue(self, req, version):
        try:
            token = self.tokens.issue(web.body_of(req).get('auth'))
        except tokens_mod.UnsupportedMethod as err:
            # Keystone's body lists the methods it offers.
            return err.status, {'error': {
                'code': err.status, 'message': err.message,
                'title': TITLES[err.status],
                'identity': {'methods': err.methods}}}
        return 201, self._token_body(req, token), {
            'X-Subject-Token': token.id}

    def _subject(self, req):
        """The token in X-Subject-Token, if the caller may see it."""
        caller = self._caller(req)
        subject = self.tokens.validate(req.headers.get('X-Subject-Token'))
        # Keystone's identity:validate_token: a service, an admin, a
        # system reader, or the token's own user.
        if not (caller.has_role('service', 'admin')
                or (caller.system and caller.has_role('reader'))
                or caller.user.id == subject.user.id):
            raise forbidden()
        return subject

    def validate(self, req, version):
        subject = self._subject(req)
        return 200, self._token_body(req, subject), {
            'X-Subject-Token': subject.id}

    def check(self, req, version):
        subject = self._subject(req)
        return 200, None, {'X-Subject-Token': subject.id}

    def revoke(self, req, version):
        self.tokens.revoke(self._subject(req))
        return 204, None

    # What a token may scope to.

    def _listing(self, req, key, entries):
        return 200, {key: entries, 'links': {
            'self': req.path_url, 'previous': None, 'next': None}}

    def auth_catalog(self, req, version):
        caller = self._caller(req)
        if not caller.scoped:
            raise forbidden()
        # Not a paged listing: Keystone links to itself only.
        return 200, {'catalog': self._catalog(req, caller),
                     'links': {'self': req.path_url}}

    def auth_projects(self, req, version):
        caller = self._caller(req)
        return self._listing(req, 'projects', [
            self._project(req, p)
            for p in self.directory.projects_of(caller.user)])

    def auth_domains(self, req, version):
        caller = self._caller(req)
        domain = self.directory.domain
        scoped = self.directory.roles_on(caller.user, domain.id)
        return self._listing(req, 'domains', [self._domain(req)] if scoped
                             else [])

    def auth_system(self, req, version):
        caller = self._caller(req)
        scoped = self.directory.roles_on(caller.user, directory_mod.SYSTEM)
        return 200, {'system': [{'all': True}] if scoped else [],
                     'links': {'self': req.path_url}}

    # Users, projects, domains, roles.

    def _user(self, req, user):
        found = {'id': user.id, 'name': user.name,
                 'domain_id': user.domain_id, 'enabled': True,
                 'password_expires_at': None, 'options': {},
                 'links': {'self': self._url(req, '/users/' + user.id)}}
        if user.default_project_id:
            found['default_project_id'] = user.default_project_id
        return found

    def _project(self, req, project):
        return {'id': project.id, 'name': project.name,
                'domain_id': project.domain_id,
                'description': project.description, 'enabled': True,
                'is_domain': False, 'parent_id': project.domain_id,
                'tags': [], 'options': {},
                'links': {'self': self._url(req, '/projects/'
                                            + project.id)}}

    def _domain(self, req):
        domain = self.directory.domain
        return {'id': domain.id, 'name': domain.name,
                'description': 'The default domain', 'enabled': True,
                'tags': [], 'options': {},
                'links': {'self': self._url(req, '/domains/' + domain.id)}}

    def _named(self, req, entries):
        """Entries filtered by ?name= as Keystone's listings are."""
        name = req.GET.get('name')
        return [e for e in entries if name is None or e.name == name]

    def _user_or_404(self, user_id):
        user = self.directory.users.get(user_id)
        if user is None:
            raise web.Reply(404, 'Could not find user: %s.' % user_id)
        return user

    def list_users(self, req, version):
        self._admin(req)
        return self._listing(req, 'users', [
            self._user(req, u) for u in self._named(
                req, self.directory.users.values())])

    def _self_or_admin(self, req, user_id):
        """Only the user ``user_id`` itself, or an admin, goes on."""
        if self._caller(req).user.id != user_id:
            self._admin(req)

    def show_user(self, req, version, user_id):
        self._self_or_admin(req, user_id)
        return 200, {'user': self._user(req, self._user_or_404(user_id))}

    def user_projects(self, req, version, user_id):
        self._self_or_admin(req, user_id)
        user = self._user_or_404(user_id)
        return self._listing(req, 'projects', [
            self._project(req, p) for p in self.directory.projects_of(user)])

    def list_projects(self, req, version):
        self._admin(req)
        return self._listing(req, 'projects', [
            self._project(req, p) for p in self._named(
                req, self.directory.projects.values())])

    def show_project(self, req, version, project_id):
        caller = self._caller(req)
        if caller.project is None or caller.project.id != project_id:
            self._admin(req)
        project = self.directory.projects.get(project_id)
        if project is None:
            raise web.Reply(404, 'Could not find project: %s.' % project_id)
        return 200, {'project': self._project(req, project)}

    def list_domains(self, req, version):
        self._admin(req)
        return self._listing(req, 'domains', [self._domain(req)])

    def show_domain(self, req, version, domain_id):
        self._caller(req)
        if domain_id != self.directory.domain.id:
            raise web.Reply(404, 'Could not find domain: %s.' % domain_id)
        return 200, {'domain': self._domain(req)}

    def list_roles(self, req, version):
        self._admin(req)
        return self._listing(req, 'roles', [
            {'id': r.id, 'name': r.name, 'domain_id': None,
             'description': None, 'options': {'immutable': True},
             'links': {'self': self._url(req, '/roles/' + r.id)}}
            for r in self._named(req, self.directory.roles.values())])

    # Services and endpoints.

    def _service(self, req, service):
        # Keystone shows a description only when one was given.
        shown = {k: v for k, v in service.items()
                 if k != 'description' or v}
        return dict(shown, links={
            'self': self._url(req, '/services/' + service['id'])})

    def _endpoint(self, req, endpoint):
        return dict(endpoint, url=self.catalog.listed_url(
            endpoint, req.host_url), links={
            'self': self._url(req, '/endpoints/' + endpoint['id'])})

    def list_services(self, req, version):
        self._admin(req)
        wanted = req.GET.get('type')
        return self._listing(req, 'services', [
            self._service(req, s) for s in self.catalog.services.values()
            if wanted is None or s['type'] == wanted])

    def list_endpoints(self, req, version):
        self._admin(req)
        wanted = {key: req.GET[key] for key in ('service_id', 'interface')
                  if key in req.GET}
        return self._listing(req, 'endpoints', [
            self._endpoint(req, e) for e in self.catalog.endpoints.values()
            if all(e[key] == value for key, value in wanted.items())])

    def create_service(self, req, version):
        self._admin(req, writes=True)
        data = web.body_of(req).get('service')
        if not isinstance(data, dict) or not isinstance(
                data.get('type'), str):
            raise web.Reply(400, "Invalid input for field 'service': "
                                 "'type' is a required property")
        service = self.catalog.add_service(
            data['type'], data.get('name'), data.get('description', ''),
            bool(data.get('enabled', True)))
        return 201, {'service': self._service(req, service)}

    def create_endpoint(self, req, version):
        self._admin(req, writes=True)
        data = web.body_of(req).get('endpoint')
        if not isinstance(data, dict) or not all(
                isinstance(data.get(key), str)
                for key in ('service_id', 'interface', 'url')):
            raise web.Reply(400, "Invalid input for field 'endpoint': "
                                 "'service_id', 'interface' and 'url' are "
                                 "required properties")
        if data['interface'] not in catalog_mod.INTERFACES:
            raise web.Reply(400, "Invalid input for field 'interface': "
                                 "one of public, internal or admin")
        if data['service_id'] not in self.catalog.services:
            raise web.Reply(400, 'Could not find service: %s.'
                                 % data['service_id'])
        endpoint = self.catalog.add_endpoint(
            data['service_id'], data['interface'], data['url'],
            data.get('region_id') or data.get('region')
            or catalog_mod.REGION, bool(data.get('enabled', True)))
        return 201, {'endpoint': self._endpoint(req, endpoint)}
