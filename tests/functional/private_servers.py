"""Real servers of our own, started from the machine's packages on free
ports, for the tests that restart them: restarting the shared ones would
pull the floor from under every other test using them.

RabbitMQ is the exception: one machine runs one broker, so its
application is restarted in place (``rabbitmqctl stop_app`` /
``start_app``), which drops every connection as a restart does.
"""

import glob
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

from tests import servers
from tests.functional import fixtures
from tools import children


def _wait_port(port, timeout=30, what='server'):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if servers.port_open(('127.0.0.1', port), timeout=0.5):
            return
        time.sleep(0.1)
    raise AssertionError('%s did not listen on %d' % (what, port))


class Redis:
    """redis-server on a free port, keeping nothing on disk (as the
    machine's own)."""

    def __init__(self, directory):
        self.binary = shutil.which('redis-server')
        if self.binary is None:
            servers.unavailable('redis', 'redis-server is not installed')
        self.directory = directory
        self.port = fixtures.free_port()
        self.proc = None

    @property
    def url(self):
        return 'redis://127.0.0.1:%d' % self.port

    def start(self):
        self.proc = children.popen(
            [self.binary, '--port', str(self.port), '--bind', '127.0.0.1',
             '--save', '', '--appendonly', 'no', '--dir',
             str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(self.port, what='redis')

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


class Postgres:
    """A PostgreSQL cluster of its own (initdb as the postgres user)."""

    def __init__(self, directory):
        found = sorted(glob.glob('/usr/lib/postgresql/*/bin/pg_ctl'))
        if not found:
            servers.unavailable('postgresql', 'pg_ctl is not installed')
        self.bin = os.path.dirname(found[-1])
        # Outside pytest's tmp_path, which only root may enter.
        self.directory = pathlib.Path(tempfile.mkdtemp(
            prefix='watcher-ha-pg-')) / 'pgdata'
        shutil.chown(self.directory.parent, 'postgres', 'postgres')
        self.port = fixtures.free_port()

    def _as_postgres(self, *command, check=True):
        return subprocess.run(['runuser', '-u', 'postgres', '--', *command],
                              check=check, capture_output=True, text=True,
                              timeout=120)

    @property
    def url(self):
        return ('postgresql+psycopg2://postgres@127.0.0.1:%d/postgres'
                % self.port)

    def start(self):
        if not self.directory.exists():
            self.directory.mkdir()
            shutil.chown(self.directory, 'postgres', 'postgres')
            self._as_postgres(os.path.join(self.bin, 'initdb'), '-D',
                              str(self.directory), '-A', 'trust', '-U',
                              'postgres')
        self._pg_ctl('start')
        _wait_port(self.port, what='postgresql')

    def _pg_ctl(self, action):
        self._as_postgres(
            os.path.join(self.bin, 'pg_ctl'), '-D', str(self.directory),
            '-w', '-m', 'fast', '-l', str(self.directory / 'log'), '-o',
            '-p %d -k %s -c listen_addresses=127.0.0.1' % (
                self.port, self.directory), action)

    def stop(self):
        self._pg_ctl('stop')

    def remove(self):
        shutil.rmtree(self.directory.parent, ignore_errors=True)


def restart_rabbit_app():
    """Stop and start the machine's RabbitMQ application: every
    connection drops, as in a broker restart."""
    ctl = shutil.which('rabbitmqctl')
    if ctl is None:
        servers.unavailable('rabbitmq', 'rabbitmqctl is not installed')
    subprocess.run([ctl, 'stop_app'], check=True, capture_output=True,
                   timeout=120)
    subprocess.run([ctl, 'start_app'], check=True, capture_output=True,
                   timeout=120)
    subprocess.run([ctl, 'await_startup'], check=True, capture_output=True,
                   timeout=120)
