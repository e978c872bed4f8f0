"""Shared fixtures: configuration, a migrated SQLite database and an
in-process API client for the fast tests."""


import pytest

from tests.helpers import overrides
from tests.helpers import tables
from tests.helpers.in_process import Client
from watcher_ha.common import context as watcher_context
from watcher_ha.conf import CONF
from watcher_ha.db import installed_plugins
from watcher_ha.db import engine
from watcher_ha.db import migration
from watcher_ha.notifications import notifier
from watcher_ha.policies import policy
from watcher_ha.service import service

@pytest.fixture(scope='session')
def conf(tmp_path_factory):
    """CONF for the in-process tests, parsed from a file of the tests'
    settings, not overridden: a test sets options through ``config``,
    whose clearing returns them to these."""
    state = tmp_path_factory.mktemp('state')
    settings = state / 'watcher-ha-tests.conf'
    settings.write_text(
        '[DEFAULT]\n'
        'state_path = {state}\n'
        'auth_strategy = noauth\n'
        'rpc_response_timeout = 1\n'
        '[database]\n'
        'connection = sqlite:///{state}/tests.sqlite\n'.format(state=state))
    service.prepare_service(['--config-file', str(settings)],
                            program='watcher-ha-tests')
    yield CONF
    CONF.reset()


@pytest.fixture
def config(conf):
    """CONF's options set for the test alone, as with oslo.config's
    fixture: ``config.config(group=None, **options)``; put back after the
    test (tests/helpers/overrides.py)."""
    made = overrides.Overrides(conf)
    yield made
    made.clear()


@pytest.fixture(scope='session')
def migrated(conf):
    migration.upgrade()
    installed_plugins.sync(watcher_context.admin_context())
    return engine.get_engine()


@pytest.fixture
def db(migrated):
    """The migrated database; every table but the catalog's (goals,
    strategies...) emptied after the test."""
    yield migrated
    with migrated.begin() as conn:
        tables.empty(conn, tables.WRITTEN)


@pytest.fixture
def admin_context():
    return watcher_context.admin_context()


@pytest.fixture
def api(db):
    from watcher_ha.api import app
    policy.reset()
    yield Client(app.setup_app(CONF))
    policy.reset()


@pytest.fixture
def notifications(config):
    """The notifications sent, as (ctxt, message, priority, retry), through
    oslo.messaging's test driver."""
    # Imported here: oslo.messaging must not load before watcher_ha has
    # chosen oslo.service's threading backend.
    from oslo_messaging.notify import _impl_test as test_driver
    notifier.get_notifier()     # registers [oslo_messaging_notifications]
    config.config(driver=['test'], group='oslo_messaging_notifications')
    notifier.reset()
    test_driver.reset()
    yield test_driver.NOTIFICATIONS
    notifier.reset()
