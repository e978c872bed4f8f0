"""Who the simulated Keystone knows: the Default domain, projects, users,
roles and role assignments, made from a scenario as keystone-manage
bootstrap and an operator would make them.

    credentials: {username: admin, password: admin, project: admin,
                  domain: Default}   # admin on the project and the system
    users:                           # more users, each with roles on a
      - {name: demo, password: demo, project: demo, roles: [member]}
"""

import dataclasses
import uuid

from watcher_ha.simulator import web

DEFAULT_DOMAIN_ID = 'default'
# Keystone's default roles and the role each implies (a token lists the
# implied ones too), as keystone-manage bootstrap makes them. Services'
# users hold "service".
IMPLIES = {'admin': 'manager', 'manager': 'member', 'member': 'reader'}
ROLE_NAMES = ('reader', 'member', 'manager', 'admin', 'service')
# The project devstack puts the services' users in.
SERVICE_PROJECT = 'service'
# What a system role assignment is on (Keystone's only system: "all").
SYSTEM = 'system'
# Keystone's message for every failed authentication: it does not tell
# a wrong password from an unknown user or a project out of reach.
UNAUTHORIZED = 'The request you have made requires authentication.'
_NAMESPACE = uuid.UUID('5f0c8a40-7e0b-4d35-9a5e-3f2b8f6c1d20')


def stable_id(kind, name):
    """An id shaped as Keystone's (32 hex digits), the same for the same
    scenario, so that a restarted simulator knows its users again."""
    return uuid.uuid5(_NAMESPACE, '%s:%s' % (kind, name)).hex


def unauthorized():
    return web.Reply(401, UNAUTHORIZED)


@dataclasses.dataclass(frozen=True)
class Domain:
    id: str
    name: str


@dataclasses.dataclass(frozen=True)
class Project:
    id: str
    name: str
    domain_id: str
    description: str = ''


@dataclasses.dataclass(frozen=True)
class User:
    id: str
    name: str
    domain_id: str
    password: str = dataclasses.field(repr=False)
    default_project_id: str = None


@dataclasses.dataclass(frozen=True)
class Role:
    id: str
    name: str


class Directory:
    """Users, projects and roles of one domain; role assignments on
    projects and on the system."""

    def __init__(self, domain_name='Default'):
        self.domain = Domain(DEFAULT_DOMAIN_ID, domain_name)
        self.roles = {name: Role(stable_id('role', name), name)
                      for name in ROLE_NAMES}
        self.projects = {}      # id -> Project
        self.users = {}         # id -> User
        self._assignments = set()   # (user id, project id or SYSTEM, role)

    @classmethod
    def from_spec(cls, spec, defaults):
        """The directory of a scenario: its credentials' user is the
        cloud's admin; ``users`` adds more."""
        credentials = dict(defaults, **(spec.get('credentials') or {}))
        directory = cls(credentials['domain'])
        admin = directory.add_user(credentials['username'],
                                   credentials['password'])
        project = directory.add_project(
            credentials['project'],
            'Bootstrap project for initializing the cloud.')
        directory.assign(admin, project.id, 'admin')
        directory.assign(admin, SYSTEM, 'admin')
        directory.add_project(SERVICE_PROJECT, 'The services\' users')
        for entry in spec.get('users') or ():
            user = directory.add_user(entry['name'], entry['password'])
            project = directory.add_project(entry['project'])
            for role in entry.get('roles') or ('member',):
                directory.assign(user, project.id, role)
        return directory

    def add_project(self, name, description=''):
        project = Project(stable_id('project', name), name, self.domain.id,
                          description)
        self.projects.setdefault(project.id, project)
        return self.projects[project.id]

    def add_user(self, name, password):
        user = User(stable_id('user', name), name, self.domain.id, password)
        self.users[user.id] = user
        return user

    def assign(self, user, target, role_name):
        if role_name not in self.roles:
            raise ValueError('Unknown role %s: Keystone here has %s'
                             % (role_name, ', '.join(ROLE_NAMES)))
        self._assignments.add((user.id, target, role_name))

    # Lookups by the references of Keystone's request bodies: {"id": ..}
    # or {"name": .., "domain": {"id" or "name": ..}}.

    def find_domain(self, ref):
        ref = ref or {}
        if ref.get('id', self.domain.id) == self.domain.id and ref.get(
                'name', self.domain.name) == self.domain.name:
            return self.domain
        return None

    def _find(self, table, ref):
        if not isinstance(ref, dict):
            return None
        if 'id' in ref:
            return table.get(ref['id'])
        if self.find_domain(ref.get('domain')) is None:
            return None
        return next((entry for entry in table.values()
                     if entry.name == ref.get('name')), None)

    def find_user(self, ref):
        return self._find(self.users, ref)

    def find_project(self, ref):
        return self._find(self.projects, ref)

    def authenticate(self, ref, password):
        """The user whose password this is, or Keystone's 401."""
        user = self.find_user(ref)
        if user is None or password != user.password:
            raise unauthorized()
        return user

    def roles_on(self, user, target):
        """The user's roles on a project id, on the domain's id or on
        SYSTEM, with the roles they imply, in Keystone's order (those
        implied, then those assigned)."""
        assigned = sorted(role for user_id, on, role in self._assignments
                          if user_id == user.id and on == target)
        implied = []
        for name in assigned:
            while name in IMPLIES:
                name = IMPLIES[name]
                if name not in implied and name not in assigned:
                    implied.append(name)
        return [self.roles[name] for name in implied + assigned]

    def projects_of(self, user):
        """The projects on which the user has a role."""
        ids = {on for user_id, on, _ in self._assignments
               if user_id == user.id and on in self.projects}
        return sorted((self.projects[i] for i in ids), key=lambda p: p.name)
