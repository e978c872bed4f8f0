"""The three controllers' backends for the tests of this folder
(services.three_controllers): made once per run. They need Debian's
mariadb-server, galera-4, rsync, rabbitmq-server, etcd-server and haproxy
(and nftables, as root, for the partitions); `make test-controllers` runs
them."""

import shutil
import uuid

import pytest

from tests import servers
from tests.functional import services
from tools import controllers

PROGRAMS = ('mariadbd', 'etcd', 'rsync', 'haproxy', str(
    controllers.RABBIT_BIN / 'rabbitmq-server'))


@pytest.fixture(scope='session')
def three_controllers():
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        message = ('the three controllers need %s: sudo apt-get install '
                   'mariadb-server galera-4 rsync rabbitmq-server '
                   'etcd-server haproxy' % ', '.join(missing))
        if servers.in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    with services.three_controllers() as members:
        yield members


@pytest.fixture
def galera_database(three_controllers, conf):
    """A database at head on the three controllers' Galera cluster, made
    the product's engine for the test through controller 1's node (each
    of its reads waits for what the cluster committed before it:
    wsrep_sync_wait); yields {controller name: URL of the database on
    that controller's node}."""
    from oslo_db.sqlalchemy import engines

    from watcher_ha.common import context
    from watcher_ha.db import engine as db_engine
    from watcher_ha.db import installed_plugins
    from watcher_ha.db import migration

    name = 'watcher_ha_test_%s' % uuid.uuid4().hex[:12]
    controllers.galera_query(three_controllers[0],
                             'CREATE DATABASE %s CHARACTER SET utf8mb4'
                             % name)
    urls = {c.name: controllers.urls(c, three_controllers)['database']
            .replace('/watcher_ha', '/' + name) + '?charset=utf8mb4'
            for c in three_controllers}
    engine = engines.create_engine(urls['c1'], mysql_wsrep_sync_wait=1)
    db_engine.prepare(engine)
    migration.upgrade(bind=engine)
    reset = db_engine.context_manager.patch_engine(engine)
    installed_plugins.sync(context.admin_context())
    try:
        yield urls
    finally:
        reset()
        engine.dispose()
        controllers.galera_query(three_controllers[0],
                                 'DROP DATABASE IF EXISTS %s' % name)
