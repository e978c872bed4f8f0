"""watcher-ha-all-in-one serving a simulated cloud with keystone auth at
that cloud's own Keystone, as ``make demo`` runs it, and the clients that
log in there."""

import contextlib
import os

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from tests.functional import fixtures
from tests.functional import identity
from watcher_ha.simulator import scenario


def embedded_cloud_sections(tmp_path, spec, sim_port):
    """The sections of an all-in-one serving the cloud ``spec`` on
    ``sim_port`` with keystone auth at that cloud's own Keystone, as
    ``make demo`` runs it: the service user validates tokens there, Nova
    and Placement are found in its catalog."""
    spec = dict(spec, users=list(spec.get('users') or ())
                + [identity.SERVICE_USER])
    path = tmp_path / 'cloud.yaml'
    scenario.dump(spec, str(path))
    keystone_url = 'http://127.0.0.1:%d/identity/v3' % sim_port
    admin = identity.password_options(keystone_url, identity.ADMIN)
    return {'simulator': {'scenario': str(path), 'port': sim_port},
            'keystone_authtoken': identity.authtoken_options(keystone_url),
            'nova': admin, 'placement': admin}


def cli_environment(keystone_url, home, user=identity.ADMIN):
    """The OS_* variables the CLIs log in with as ``user``, nothing from
    the caller's environment or clouds.yaml."""
    return {'PATH': os.environ['PATH'], 'HOME': str(home),
            'OS_AUTH_URL': keystone_url, 'OS_USERNAME': user['name'],
            'OS_PASSWORD': user['password'],
            'OS_PROJECT_NAME': user['project'],
            'OS_USER_DOMAIN_NAME': 'Default',
            'OS_PROJECT_DOMAIN_NAME': 'Default',
            'OS_IDENTITY_API_VERSION': '3'}


@contextlib.contextmanager
def all_in_one(tmp_path, spec):
    """The all-in-one serving ``spec``: (API URL, the cloud's URL) while
    in the block. Its Keystone is at <the cloud's URL>/identity/v3."""
    sim_port = fixtures.free_port()
    sections = fixtures.base_config(
        tmp_path, **embedded_cloud_sections(tmp_path, spec, sim_port))
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf', sections)
    fixtures.prepare_database(config)
    with fixtures.all_in_one(config, sections['api']['port'],
                             timeout=60) as url:
        yield url, 'http://127.0.0.1:%d' % sim_port


def session(keystone_url, user=identity.ADMIN):
    """A keystoneauth session logged in as ``user`` (password auth)."""
    return ks_session.Session(auth=v3.Password(
        auth_url=keystone_url, username=user['name'],
        password=user['password'], project_name=user['project'],
        user_domain_name='Default', project_domain_name='Default'))
