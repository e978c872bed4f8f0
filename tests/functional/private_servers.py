"""Real servers of our own, started from the machine's packages on free
ports, for the tests that restart them: restarting the shared ones would
pull the floor from under every other test using them. RabbitMQ's node
is one controller's of tools/controllers.py.
"""

import glob
import os
import pathlib
import random
import shutil
import subprocess
import tempfile
import time

from tests import servers
from tests.functional import fixtures
from tools import children
from tools import controllers


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


class Rabbit:
    """A RabbitMQ node of its own (Debian's rabbitmq-server, as
    tools/controllers.py runs a controller's) on free ports, its default
    guest user and vhost."""

    def __init__(self, directory):
        if not (controllers.RABBIT_BIN / 'rabbitmq-server').exists():
            servers.unavailable('rabbitmq', 'rabbitmq-server is not '
                                'installed in %s' % controllers.RABBIT_BIN)
        self.node = controllers.Controller(
            controllers.CONTROLLERS[0], pathlib.Path(directory),
            _free_base_port())

    @property
    def url(self):
        return 'rabbit://guest:guest@127.0.0.1:%d/' % self.node.port('amqp')

    def start(self):
        controllers.launch_rabbit(self.node)()

    def restart_app(self):
        """Stop and start its application: every connection drops, as in
        a broker restart."""
        for step in ('stop_app', 'start_app', 'await_startup'):
            done = controllers.rabbitmqctl(self.node, step, timeout=120)
            if done.returncode:
                raise AssertionError('rabbitmqctl %s: %s' % (
                    step, done.stderr.strip()[-300:]))

    def stop(self):
        controllers.down([self.node])


# Where a private node's base port is drawn from: above the three
# controllers' (21000, tools/controllers.py), below the kernel's
# ephemeral ports. A port of that range is taken at any moment as the
# local end of some connection of the machine's: a node listening there
# would fail to start now and then (eaddrinuse), though the port was
# free when it was chosen.
PRIVATE_BASE_PORTS = (22000, 32000)


def _ephemeral_floor():
    try:
        with open('/proc/sys/net/ipv4/ip_local_port_range') as found:
            return int(found.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _free_base_port():
    """A base port whose controller ports (tools/controllers.PORTS, from
    base + 100) are free now, and not the kernel's to give out."""
    rng = random.SystemRandom()
    highest = max(controllers.PORTS.values()) + 100 * len(
        controllers.CONTROLLERS)
    top = min(PRIVATE_BASE_PORTS[1], _ephemeral_floor() - highest)
    for _ in range(50):
        base = rng.randrange(PRIVATE_BASE_PORTS[0], top, 200)
        node = controllers.Controller(controllers.CONTROLLERS[0],
                                      pathlib.Path('.'), base)
        if not any(servers.port_open(('127.0.0.1', node.port(what)),
                                     timeout=0.2)
                   for what in ('amqp', 'rabbit_dist')):
            return base
    raise AssertionError('no free ports for a RabbitMQ node')
