"""The real servers the functional tests use, on loopback.

Each test run gets its own fresh database on MariaDB and PostgreSQL and
drops it afterwards. When a server is missing, tests fail under CI=true
(the servers are part of the CI contract) and are skipped otherwise, with
the command that starts the server.
"""

import atexit
import contextlib
import os
import socket
import uuid

import pytest
import sqlalchemy as sa

from tools import children

MYSQL = {'host': '127.0.0.1', 'port': 3306, 'user': 'root', 'password': ''}
POSTGRES = {'host': '127.0.0.1', 'port': 5432, 'user': 'postgres'}
RABBIT = ('127.0.0.1', 5672)
REDIS = ('127.0.0.1', 6379)

HOW_TO_START = {
    'mariadb': "start-stop-daemon --start --oknodo --background --exec "
               "/usr/sbin/mariadbd  (or: sudo apt install mariadb-server)",
    'postgresql': "pg_ctlcluster --skip-systemctl-redirect "
                  "$(ls /etc/postgresql) main start  "
                  "(or: sudo apt install postgresql)",
    'rabbitmq': 'rabbitmq-server -detached  (or: sudo apt install '
                'rabbitmq-server)',
    'redis': 'redis-server --daemonize yes --port 6379  (or: sudo apt '
             'install redis-server)',
    # A program the tests run themselves, not a server they expect.
    'prometheus': 'sudo apt-get install prometheus  (the Debian package; '
                  'the test runs its own server, not the service)',
    'shellcheck': 'sudo apt-get install shellcheck',
    'systemd': 'sudo apt-get install systemd  (for systemd-analyze and '
               'systemd-sysusers; no systemd instance is needed)',
}


def in_ci():
    return os.environ.get('CI', '').lower() == 'true'


def unavailable(server, error):
    message = ('%s is not available (%s). Get it with: %s'
               % (server, error, HOW_TO_START[server]))
    if in_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def port_open(address, timeout=1.0):
    try:
        with socket.create_connection(address, timeout=timeout):
            return True
    except OSError:
        return False


def _mysql_admin():
    import pymysql
    return pymysql.connect(**MYSQL, autocommit=True, connect_timeout=3)


def _postgres_admin():
    import psycopg2
    conn = psycopg2.connect(dbname='postgres', connect_timeout=3, **POSTGRES)
    conn.autocommit = True
    return conn


# kind: (server name, admin connection, URL template, CREATE, DROP)
DATABASES = {
    'mysql': ('mariadb', _mysql_admin,
              'mysql+pymysql://{user}@{host}:{port}/{name}?charset=utf8mb4',
              'CREATE DATABASE {name} CHARACTER SET utf8mb4',
              'DROP DATABASE IF EXISTS {name}'),
    'postgresql': ('postgresql', _postgres_admin,
                   'postgresql+psycopg2://{user}@{host}:{port}/{name}',
                   'CREATE DATABASE {name} ENCODING UTF8',
                   'DROP DATABASE IF EXISTS {name} WITH (FORCE)'),
}


def create_database(kind):
    """Create an empty database; return (SQLAlchemy URL, drop function)."""
    server, connect, url, create_sql, drop_sql = DATABASES[kind]
    name = 'watcher_ha_test_%s' % uuid.uuid4().hex[:12]
    try:
        admin = connect()
    except Exception as err:
        unavailable(server, err)
    with admin.cursor() as cur:
        cur.execute(create_sql.format(name=name))
    access = MYSQL if kind == 'mysql' else POSTGRES

    def drop():
        with admin.cursor() as cur:
            cur.execute(drop_sql.format(name=name))
        admin.close()
    return url.format(name=name, **access), drop


def create_rabbit_vhost():
    """A fresh RabbitMQ virtual host for one test run, so that no queue
    of an earlier run feeds this one: (transport_url, delete function).

    Needs rabbitmqctl (root, or the rabbitmq group); without it the
    default vhost is used.
    """
    import shutil
    import subprocess
    if not port_open(RABBIT):
        unavailable('rabbitmq', 'nothing listens on %s:%d' % RABBIT)
    ctl = shutil.which('rabbitmqctl')
    base = 'rabbit://guest:guest@%s:%d/' % RABBIT
    if ctl is None:
        return base, lambda: None
    vhost = 'watcher_ha_test_%s' % uuid.uuid4().hex[:12]
    try:
        subprocess.run([ctl, 'add_vhost', vhost], check=True,
                       capture_output=True, timeout=60)
        subprocess.run([ctl, 'set_permissions', '-p', vhost, 'guest', '.*',
                        '.*', '.*'], check=True, capture_output=True,
                       timeout=60)
    except (OSError, subprocess.SubprocessError):
        return base, lambda: None

    def delete():
        # In the background: each rabbitmqctl call boots an Erlang VM for
        # a second or so; the run's end waits for the deletions.
        _deleting.append(children.popen(
            [ctl, 'delete_vhost', vhost], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL))
    return base + vhost, delete



@contextlib.contextmanager
def rabbit_vhost():
    """create_rabbit_vhost() for the block: its transport URL."""
    url, delete = create_rabbit_vhost()
    try:
        yield url
    finally:
        delete()


_deleting = []


@atexit.register
def _wait_deletions():
    for proc in _deleting:
        proc.wait(60)


def redis_coordination_url():
    """A tooz URL on the local Redis, in a namespace of its own so that
    no other test run's members join our groups."""
    if not port_open(REDIS):
        unavailable('redis', 'nothing listens on %s:%d' % REDIS)
    return 'redis://%s:%d?namespace=watcher_ha_test_%s' % (
        REDIS + (uuid.uuid4().hex[:12],))


@contextlib.contextmanager
def database(kind):
    """A new database of ``kind`` ('mysql' or 'postgresql') and an
    SQLAlchemy engine on it, dropped on leaving: (url, engine)."""
    url, drop = create_database(kind)
    engine = sa.create_engine(url)
    try:
        yield url, engine
    finally:
        engine.dispose()
        drop()
