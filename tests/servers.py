"""The real servers the functional tests use, on loopback.

Each test run gets its own fresh database on MariaDB and PostgreSQL and
drops it afterwards. When a server is missing, tests fail under CI=true
(the servers are part of the CI contract) and are skipped otherwise, with
the command that starts the server.
"""

import os
import socket
import uuid

import pytest

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
}


def in_ci():
    return os.environ.get('CI', '').lower() == 'true'


def unavailable(server, error):
    message = ('%s is not reachable on loopback (%s). Start it with: %s'
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


def create_database(kind):
    """Create an empty database; return (SQLAlchemy URL, drop function)."""
    name = 'watcher_ha_test_%s' % uuid.uuid4().hex[:12]
    if kind == 'mysql':
        try:
            admin = _mysql_admin()
        except Exception as err:
            unavailable('mariadb', err)
        with admin.cursor() as cur:
            cur.execute('CREATE DATABASE %s CHARACTER SET utf8mb4' % name)
        url = ('mysql+pymysql://%s@%s:%d/%s?charset=utf8mb4'
               % (MYSQL['user'], MYSQL['host'], MYSQL['port'], name))

        def drop():
            with admin.cursor() as cur:
                cur.execute('DROP DATABASE IF EXISTS %s' % name)
            admin.close()
        return url, drop
    if kind == 'postgresql':
        try:
            admin = _postgres_admin()
        except Exception as err:
            unavailable('postgresql', err)
        with admin.cursor() as cur:
            cur.execute('CREATE DATABASE %s' % name)
        url = ('postgresql+psycopg2://%s@%s:%d/%s'
               % (POSTGRES['user'], POSTGRES['host'], POSTGRES['port'], name))

        def drop():
            with admin.cursor() as cur:
                cur.execute('DROP DATABASE IF EXISTS %s WITH (FORCE)' % name)
            admin.close()
        return url, drop
    raise ValueError(kind)
