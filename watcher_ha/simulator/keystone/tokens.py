"""Tokens as Keystone issues them: for the password or the token method,
unscoped or scoped to a project, the domain or the system, with the
roles of that scope; validated until they expire or are revoked."""

import dataclasses
import datetime
import secrets

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import web
from watcher_ha.simulator.keystone import directory as directory_mod

# Keystone's [token] expiration.
DEFAULT_LIFETIME = 3600
METHODS = ('password', 'token')


def isotime(moment):
    # Keystone's times are to the second, written with microseconds.
    return moment.strftime('%Y-%m-%dT%H:%M:%S.000000Z')


# What Keystone adds to a 400's message.
MALFORMED = ('The server could not comply with the request since it is '
             'either malformed or otherwise incorrect. The client is '
             'assumed to be in error.')


def bad_request(message):
    return web.Reply(400, message)


class UnsupportedMethod(web.Reply):
    """Keystone's 401 for an auth method it does not offer: its body
    lists those it does (api.py)."""

    def __init__(self):
        super().__init__(401, 'Attempted to authenticate with an '
                              'unsupported method.')
        self.methods = list(METHODS)


@dataclasses.dataclass(frozen=True)
class Token:
    id: str
    user: directory_mod.User
    methods: tuple
    issued_at: datetime.datetime
    expires_at: datetime.datetime
    audit_ids: tuple
    project: directory_mod.Project = None
    domain: directory_mod.Domain = None
    system: bool = False
    roles: tuple = ()

    @property
    def scoped(self):
        return bool(self.project or self.domain or self.system)

    def has_role(self, *names):
        return any(role.name in names for role in self.roles)


class Tokens:

    def __init__(self, directory, lifetime=DEFAULT_LIFETIME, clock=None):
        self.directory = directory
        self.clock = clock or clock_mod.REAL
        self.lifetime = datetime.timedelta(seconds=lifetime)
        self._issued = {}   # id -> Token
        self._revoked = set()   # audit ids

    def validate(self, token_id):
        """The token of that id while it is valid; Keystone's 404
        otherwise."""
        if not token_id:
            raise web.Reply(404, 'No token in the request')
        token = self._issued.get(token_id)
        if token is None:
            raise web.Reply(404, 'Could not find token: %s.' % token_id)
        if (token.expires_at <= self._now()
                or token.audit_ids[0] in self._revoked):
            raise web.Reply(404, 'Failed to validate token')
        return token

    def _now(self):
        # Keystone's times are to the second.
        return self.clock.now().replace(tzinfo=datetime.timezone.utc,
                                        microsecond=0)

    def revoke(self, token):
        """That token (not those rescoped from it or it from)."""
        self._revoked.add(token.audit_ids[0])

    def issue(self, auth):
        """A token for a POST /v3/auth/tokens body's ``auth``."""
        if not isinstance(auth, dict) or not isinstance(
                auth.get('identity'), dict):
            raise bad_request("'identity' is a required property")
        identity = auth['identity']
        methods = identity.get('methods')
        if not isinstance(methods, list) or not methods or not all(
                isinstance(m, str) for m in methods):
            raise bad_request("Invalid input for field 'identity/methods': "
                              "a non-empty list of method names is "
                              "expected")
        for method in methods:
            if method not in METHODS:
                raise UnsupportedMethod()
            if not isinstance(identity.get(method), dict):
                raise bad_request(
                    'Expecting to find %s in identity. %s' % (method,
                                                              MALFORMED))
        started = self._now()
        parent = None
        if 'token' in methods:
            parent = self._parent(identity['token'])
            user = parent.user
        if 'password' in methods:
            user = self._password(identity['password'])
            if parent is not None and user.id != parent.user.id:
                raise directory_mod.unauthorized()
        scope = self._scope(user, auth.get('scope'))
        expires = started + self.lifetime
        audit_ids = (secrets.token_urlsafe(16),)
        if parent is not None:
            # A rescoped token ends when the one it came from does, and
            # belongs to its audit chain.
            expires = min(expires, parent.expires_at)
            audit_ids += parent.audit_ids[-1:]
            # Keystone's order: this request's methods, then the
            # parent's.
            methods = methods + [m for m in parent.methods
                                 if m not in methods]
        token = Token(id=secrets.token_hex(32), user=user,
                      methods=tuple(methods), issued_at=started,
                      expires_at=expires, audit_ids=audit_ids, **scope)
        self._forget_expired(started)
        self._issued[token.id] = token
        return token

    def _forget_expired(self, moment):
        for token_id in [t.id for t in self._issued.values()
                         if t.expires_at <= moment]:
            del self._issued[token_id]

    def _parent(self, data):
        token_id = data.get('id')
        if not isinstance(token_id, str):
            raise bad_request("Invalid input for field 'identity/token': "
                              "'id' is a required property")
        return self.validate(token_id)

    def _password(self, data):
        user = data.get('user')
        if not isinstance(user, dict) or not (
                'id' in user or 'name' in user):
            raise bad_request("Invalid input for field 'identity/password/"
                              "user': 'id' or 'name' is a required "
                              "property")
        if 'name' in user and 'id' not in user and not isinstance(
                user.get('domain'), dict):
            raise bad_request('Expecting to find domain in user. '
                              + MALFORMED)
        return self.directory.authenticate(user, user.get('password'))

    def _scope(self, user, scope):
        """{project|domain|system, roles} of the token asked for."""
        found = self.directory
        if scope is None:
            if user.default_project_id is None:
                return {}
            scope = {'project': {'id': user.default_project_id}}
        if scope == 'unscoped':
            return {}
        if not isinstance(scope, dict) or len(scope) != 1:
            raise bad_request('Specify one of project, domain or system '
                              'as the scope, or none for an unscoped '
                              'token.')
        (kind, ref), = scope.items()
        if kind == 'project':
            target = found.find_project(ref)
            roles = target and found.roles_on(user, target.id)
            result = {'project': target}
        elif kind == 'domain':
            target = found.find_domain(ref)
            roles = target and found.roles_on(user, target.id)
            result = {'domain': target}
        elif kind == 'system' and ref == {'all': True}:
            roles = found.roles_on(user, directory_mod.SYSTEM)
            result = {'system': True}
        else:
            raise bad_request("Invalid input for field 'scope': %s" % kind)
        if not roles:
            # No such project or domain, or no role on it.
            raise directory_mod.unauthorized()
        return dict(result, roles=tuple(roles))
