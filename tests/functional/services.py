"""The real services of the functional tests, one entry point each.

A test takes a service from here (or from the pytest fixture of
tests/functional/conftest.py that wraps the entry point), never by
setting it up itself, so that each service is started, named and
cleaned up in one way:

- RabbitMQ: ``rabbit_vhost()``, a virtual host of its own, deleted on
  leaving (fixtures ``rabbit`` for a module, ``own_rabbit`` for a test,
  ``rabbit_here`` when this process talks on it too);
  ``create_rabbit_vhost()`` for a test that deletes it while it runs;
- MariaDB and PostgreSQL: ``database(kind)``, a new database and an
  engine on it, dropped on leaving (fixture ``database``, both kinds);
  ``create_database(kind)`` where the drop must wait;
- Redis: ``redis_coordination_url()``, a namespace of the machine's;
  ``private_redis(folder)``, a server of the test's own, for tests that
  stop it (fixture ``private_redis``);
- the simulator (the cloud): ``simulator(folder, spec)``;
- the daemons: ``cluster(folder, database_url, transport_url)``, an API
  with engines and appliers started by the test (fixture
  ``ha_cluster``); ``api_process``, one API (fixture ``api_server``);
  ``all_in_one``, the three in one process; ``embedded_all_in_one``, that
  with its embedded simulated cloud; ``cloud_cluster``, a cluster on a
  database of its own and the simulator;
- Keystone: ``keystone()``, the one every daemon checks tokens at;
- three controllers' Galera, RabbitMQ and etcd clusters:
  ``three_controllers()`` (tools/controllers.py; fixture
  ``three_controllers`` of tests/functional/three_controllers/).

How each is run stays in the module imported for it below; this one is
where the tests find them.
"""

import contextlib
import os
import pathlib
import shutil
import tempfile

from tests.functional import private_servers
from tests.functional import sql_proxy
from tests.functional.cloud import simulator
from tests.functional.daemons import cluster
from tests.functional.embedded_cloud import all_in_one as embedded_all_in_one
from tests.functional.fixtures import all_in_one
from tests.functional.fixtures import api_process
from tests.functional.identity import keystone
from tests.functional.identity import stop_keystone
from tests.servers import create_database
from tests.servers import create_rabbit_vhost
from tests.servers import database
from tests.servers import rabbit_vhost
from tests.servers import redis_coordination_url
from tools import controllers

__all__ = ['all_in_one', 'api_process', 'cloud_cluster', 'cluster',
           'create_database', 'create_rabbit_vhost', 'database',
           'embedded_all_in_one', 'keystone', 'private_redis',
           'rabbit_vhost', 'redis_coordination_url', 'simulator',
           'stop_keystone', 'three_controllers']


@contextlib.contextmanager
def private_redis(folder):
    """A redis-server of the block's own (private_servers.Redis),
    started: the test may stop and start it again."""
    redis = private_servers.Redis(folder)
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


@contextlib.contextmanager
def cloud_cluster(tmp_path, spec, sections, rabbit=None, kind='mysql',
                  notifications=False, engines=('engine-1',),
                  appliers=('applier-1',), proxied=False, **extra):
    """A database of ``kind``, the simulator playing ``spec`` (sending
    its notifications on the RabbitMQ virtual host ``rabbit`` when
    ``notifications``), and a cluster on them whose configuration adds
    ``sections(simulator URL)`` and ``extra``, its daemons started:
    (cluster, simulator URL). ``rabbit``: a virtual host of the block's
    own when None. The cluster's ``engine`` is an SQLAlchemy engine on
    its database; ``proxied``: the daemons reach the database through
    the cluster's ``proxy`` (sql_proxy.SqlProxy), which cuts their
    connections as a test arms it (else ``proxy`` is None)."""
    with contextlib.ExitStack() as stack:
        if rabbit is None:
            rabbit = stack.enter_context(rabbit_vhost())
        db_url, engine = stack.enter_context(database(kind))
        proxy = (stack.enter_context(sql_proxy.SqlProxy(db_url))
                 if proxied else None)
        sent = {'transport_url': rabbit} if notifications else {}
        sim_url = stack.enter_context(
            simulator(tmp_path / 'sim', spec, **sent))
        options = sections(sim_url)
        for section, values in extra.items():
            options[section] = dict(options.get(section, {}), **values)
        running = stack.enter_context(cluster(
            tmp_path, proxy.url if proxied else db_url, rabbit, **options))
        running.engine = engine
        running.proxy = proxy
        running.start_daemons(engines=list(engines),
                              appliers=list(appliers))
        yield running, sim_url


@contextlib.contextmanager
def three_controllers():
    """The backends of three controllers, started (tools/controllers.py):
    their Controllers, taken down and removed on leaving."""
    # Not under pytest's own temporary folder: it is private to this
    # user, and the Galera nodes run as Debian's mysql user.
    root = pathlib.Path(tempfile.mkdtemp(prefix='watcher-ha-controllers-'))
    root.chmod(0o755)
    # Two sets of controllers on one machine (two test runs side by
    # side) each need ports of their own.
    members = controllers.controllers(root, int(os.environ.get(
        'WATCHER_HA_CONTROLLERS_BASE_PORT', controllers.DEFAULT_BASE_PORT)))
    try:
        controllers.up(members)
        yield members
    finally:
        controllers.down(members)
        shutil.rmtree(root, ignore_errors=True)
