"""Fixtures of the functional tests: the real services they share
(RabbitMQ, MariaDB and PostgreSQL, Redis, the simulator, the daemons,
Keystone), one definition each, taken from tests/functional/services.py."""

import pytest
import requests

from tests.functional import daemon_logs
from tests.functional import daemons
from tests.functional import fixtures
from tests.functional import services
from tests.functional import slow_strategy


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A functional test that fails reports what its daemons logged
    (their *.log files under its tmp_path): the daemons are other
    processes, and a failure in CI is otherwise all there is to go on."""
    outcome = yield
    report = outcome.get_result()
    where = item.funcargs.get('tmp_path') if hasattr(item, 'funcargs') \
        else None
    if report.failed and where is not None:
        for name, excerpt in daemon_logs.excerpts(where):
            report.sections.append(('daemon log %s' % name, excerpt))


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
                headers, **{'X-Auth-Token': services.keystone().token()})
        return send(session, method, url, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(requests.Session, 'request', request)
        try:
            yield
        finally:
            services.stop_keystone()


@pytest.fixture(params=['mysql', 'postgresql'])
def database(request):
    """A new MariaDB or PostgreSQL database, dropped after: (url, engine).
    A test marked fixtures.MARIADB_ONLY runs on MariaDB alone."""
    with services.database(request.param) as found:
        yield found


@pytest.fixture
def api_server(tmp_path):
    """A watcher-ha-api process on SQLite (keystone auth at the tests'
    Keystone): yields its URL."""
    port = fixtures.free_port()
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path, port=port))
    fixtures.prepare_database(config)
    with services.api_process(config, port) as url:
        yield url


@pytest.fixture(scope='module')
def rabbit():
    """A RabbitMQ virtual host for the test module: its transport URL."""
    with services.rabbit_vhost() as url:
        yield url


@pytest.fixture
def own_rabbit():
    """A RabbitMQ virtual host for the test alone (no queue or connection
    of another test in it): its transport URL."""
    with services.rabbit_vhost() as url:
        yield url


@pytest.fixture
def rabbit_here(own_rabbit, config):
    """own_rabbit, also this process's transport_url for the test."""
    config.config(transport_url=own_rabbit)
    return own_rabbit


@pytest.fixture
def private_redis(tmp_path):
    """A redis-server of the test's own (a private_servers.Redis),
    started: the test may stop and start it."""
    with services.private_redis(tmp_path) as redis:
        yield redis


@pytest.fixture
def ha_cluster(tmp_path, database, rabbit, monkeypatch):
    """An API, with engines and appliers started by each test; these also
    have the tests' slow strategy."""
    url, engine = database
    notes = daemons.Notifications(rabbit)

    def start(**extra):
        extra.setdefault('coordination', {}).setdefault(
            'backend_url', services.redis_coordination_url())
        context = services.cluster(tmp_path, url, rabbit, **extra)
        running = context.__enter__()
        # After the catalog was loaded: the slow strategy comes after the
        # product's own (a goal's first strategy is its default).
        monkeypatch.setenv('PYTHONPATH', slow_strategy.install(
            tmp_path / 'plugins'))
        running.engine = engine
        running.notes = notes
        started.append((context, running))
        return running

    started = []
    yield start
    # Nothing is checked any more: kill the daemons rather than wait for
    # their graceful stops (tested elsewhere), and stop listening to the
    # bus meanwhile.
    listening = notes.stop_meanwhile()
    for context, running in started:
        for name, proc in running.processes.items():
            if proc.poll() is None:
                running.kill(name)
        context.__exit__(None, None, None)
    listening.join()


@pytest.fixture
def nova_conf(config):
    """[nova]/[placement]: auth_type none, endpoints on the simulator."""
    def point_at(url):
        for group, path in (('nova', '/compute/v2.1'),
                            ('placement', '/placement')):
            config.config(group=group, auth_type='none',
                          endpoint_override=url + path)
    return point_at
