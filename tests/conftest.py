"""Shared fixtures: configuration, a migrated SQLite database and an
in-process API client for the fast tests."""

import os

import pytest

from tests import servers
from tests.helpers import tables
from tests.helpers.in_process import Client
from watcher_ha.common import context as watcher_context
from watcher_ha.conf import CONF
from watcher_ha.db import catalog
from watcher_ha.db import engine
from watcher_ha.db import migration
from watcher_ha.notifications import notifier
from watcher_ha.policies import policy
from watcher_ha.service import service

def pytest_collection_modifyitems(config, items):
    """WATCHER_HA_TESTS_NO_SERVER_RESTARTS=1 leaves out the tests marked
    serial, which restart the machine's RabbitMQ under everyone using it,
    unless CI=true: CI runs them all (README.rst, testing notes)."""
    if (os.environ.get('WATCHER_HA_TESTS_NO_SERVER_RESTARTS') != '1'
            or servers.in_ci()):
        return
    restarting = [item for item in items if item.get_closest_marker(
        'serial')]
    if restarting:
        config.hook.pytest_deselected(items=restarting)
        items[:] = [item for item in items if item not in restarting]


@pytest.fixture(scope='session')
def conf(tmp_path_factory):
    state = tmp_path_factory.mktemp('state')
    service.prepare_service([], program='watcher-ha-tests')
    CONF.set_override('state_path', str(state))
    CONF.set_override('auth_strategy', 'noauth')
    CONF.set_override('connection', 'sqlite:///%s/tests.sqlite' % state,
                      group='database')
    CONF.set_override('rpc_response_timeout', 1)
    engine.configure(CONF)
    yield CONF
    CONF.reset()


@pytest.fixture(scope='session')
def migrated(conf):
    migration.upgrade()
    catalog.sync(watcher_context.admin_context())
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
def notifications(conf):
    """The notifications sent, as (ctxt, message, priority, retry), through
    oslo.messaging's test driver."""
    # Imported here: oslo.messaging must not load before watcher_ha has
    # chosen oslo.service's threading backend.
    from oslo_messaging.notify import _impl_test as test_driver
    notifier.get_notifier()     # registers [oslo_messaging_notifications]
    CONF.set_override('driver', ['test'],
                      group='oslo_messaging_notifications')
    notifier.reset()
    test_driver.reset()
    yield test_driver.NOTIFICATIONS
    CONF.clear_override('driver', group='oslo_messaging_notifications')
    notifier.reset()
