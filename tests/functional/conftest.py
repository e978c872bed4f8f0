import pytest

from tests import servers
from tests.functional import fixtures


@pytest.fixture(params=['mysql', 'postgresql'])
def database(request):
    """A new MariaDB or PostgreSQL database, dropped after: (url, engine).
    A test marked fixtures.MARIADB_ONLY runs on MariaDB alone."""
    with servers.database(request.param) as found:
        yield found


@pytest.fixture
def api_server(tmp_path):
    """A watcher-ha-api process on SQLite with noauth: yields its URL."""
    port = fixtures.free_port()
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path, port=port))
    fixtures.prepare_database(config)
    with fixtures.api_process(config, port) as url:
        yield url
