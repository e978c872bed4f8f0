"""The Keystone of the functional tests.

The watcher_ha processes the tests start run with ``auth_strategy =
keystone`` (fixtures.base_config): keystonemiddleware validates every
token at the simulator's Keystone, served from a thread of the test
process (one per process, started on first use, stopped at the end of
the test session). Its admin's token goes with every request the tests
send through ``requests`` (tests/functional/conftest.py) and with the
CLIs they run (``watcher_cli_auth``, ``openstack_cli_auth``): the tests
call the API as a logged-in client does.
"""

import contextlib
import datetime
import threading

from tests import served

# The user keystonemiddleware validates tokens as, in the service
# project, as devstack makes the services' users.
SERVICE_USER = {'name': 'watcher', 'password': 'watcher-secret',
                'project': 'service', 'roles': ['admin', 'service']}
# The cloud's admin (keystone-manage bootstrap's).
ADMIN = {'name': 'admin', 'password': 'admin', 'project': 'admin'}
# A token is issued again when it has less than this left.
TOKEN_MARGIN = datetime.timedelta(minutes=10)


def password_options(keystone_url, user):
    """keystoneauth's password options for ``user`` at ``keystone_url``
    (…/identity/v3), for [keystone_authtoken], [nova], ..."""
    return {'auth_type': 'password', 'auth_url': keystone_url,
            'username': user['name'], 'password': user['password'],
            'project_name': user['project'],
            'user_domain_name': 'Default', 'project_domain_name': 'Default'}


def cloud_sections(sim_url, *groups):
    """{group: the cloud admin's password options} for each of ``groups``
    ([nova], [placement], ...): how the daemons reach the simulator."""
    options = password_options(sim_url + '/identity/v3', ADMIN)
    return {group: dict(options) for group in groups}


def authtoken_options(keystone_url):
    """[keystone_authtoken]: validate tokens at ``keystone_url`` as the
    service user."""
    return dict(password_options(keystone_url, SERVICE_USER),
                www_authenticate_uri=keystone_url)


class Keystone:
    """The simulator's Keystone on a loopback port, with no cloud."""

    def __init__(self):
        self._serving = served.simulator_serving({
            'hosts': [], 'servers': [], 'users': [SERVICE_USER],
            # Longer than any test run: a token in a test's config or
            # environment stays valid to its end.
            'token_expiration': 24 * 3600})
        self.simulator, base_url = self._serving.__enter__()
        self.url = base_url + '/identity/v3'
        self._token = None
        self._lock = threading.Lock()

    def token(self):
        """A project-scoped token of the admin, issued in process (no
        HTTP: this is called from inside requests, see conftest.py)."""
        tokens = self.simulator.identity.tokens
        with self._lock, self.simulator.cloud.lock:
            if self._token is None or (
                    self._token.expires_at - TOKEN_MARGIN
                    < datetime.datetime.now(datetime.timezone.utc)):
                self._token = tokens.issue({
                    'identity': {'methods': ['password'], 'password': {
                        'user': {'name': ADMIN['name'],
                                 'password': ADMIN['password'],
                                 'domain': {'id': 'default'}}}},
                    'scope': {'project': {'name': ADMIN['project'],
                                          'domain': {'id': 'default'}}}})
            return self._token.id

    def stop(self):
        with contextlib.suppress(Exception):
            self._serving.__exit__(None, None, None)


_keystone = None
_started = threading.Lock()


def keystone():
    """This process's Keystone, started on first use."""
    global _keystone
    with _started:
        if _keystone is None:
            _keystone = Keystone()
        return _keystone


def stop_keystone():
    """Stop this process's Keystone, if it was started. The test
    session's end calls this: its server's worker threads are not
    daemons, and Python joins those before it runs atexit handlers, so
    a process that left it serving would never exit."""
    global _keystone
    with _started:
        if _keystone is not None:
            _keystone.stop()
            _keystone = None


def watcher_cli_auth(url):
    """The ``watcher`` CLI's options to call the API at ``url`` with the
    admin's token."""
    # Joined with "=": argparse would take a value starting with "-" for
    # an option.
    return ['--os-auth-token=' + keystone().token(),
            '--os-endpoint-override', url]


def openstack_cli_auth(url):
    """The ``openstack`` CLI's options to call the service at ``url``
    with the admin's token (keystoneauth's admin_token plugin)."""
    return ['--os-auth-type', 'admin_token',
            '--os-token=' + keystone().token(), '--os-endpoint', url]

