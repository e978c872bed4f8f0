import pytest
import requests

from tests import servers
from tests.functional import fixtures
from tests.functional import identity


@pytest.fixture(autouse=True, scope='session')
def authenticated_requests():
    """Every request a test (or a fixture of any scope) sends with
    ``requests`` carries the tests' admin token
    (tests/functional/identity.py), as a logged-in client's does, unless
    it names an X-Auth-Token itself (None: no token at all). The
    simulator's services take any token."""
    send = requests.Session.request

    def request(session, method, url, **kwargs):
        headers = kwargs.get('headers') or {}
        if not any(name.lower() == 'x-auth-token'
                   for name in list(headers) + list(session.headers)):
            kwargs['headers'] = dict(
                headers, **{'X-Auth-Token': identity.keystone().token()})
        return send(session, method, url, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(requests.Session, 'request', request)
        try:
            yield
        finally:
            identity.stop_keystone()


@pytest.fixture(params=['mysql', 'postgresql'])
def database(request):
    """A new MariaDB or PostgreSQL database, dropped after: (url, engine).
    A test marked fixtures.MARIADB_ONLY runs on MariaDB alone."""
    with servers.database(request.param) as found:
        yield found


@pytest.fixture
def api_server(tmp_path):
    """A watcher-ha-api process on SQLite (keystone auth at the tests'
    Keystone): yields its URL."""
    port = fixtures.free_port()
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path, port=port))
    fixtures.prepare_database(config)
    with fixtures.api_process(config, port) as url:
        yield url
