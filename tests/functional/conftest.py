import pytest

from tests.functional import fixtures


@pytest.fixture
def api_server(tmp_path):
    """A watcher-ha-api process on SQLite with noauth: yields its URL."""
    port = fixtures.free_port()
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path, port=port))
    fixtures.prepare_database(config)
    with fixtures.api_process(config, port) as url:
        yield url
