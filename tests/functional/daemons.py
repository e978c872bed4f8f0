"""Running watcher_ha daemons as separate processes for functional tests."""

import contextlib
import json
import os
import signal
import subprocess
import threading
import time

import oslo_messaging
import requests

from tests.functional import fixtures
from tests.functional import identity
from tools import children
from watcher_ha.conf import CONF
from watcher_ha.db import models


# The intervals every cluster's configuration sets (seconds): what the
# tests' waits are derived from (fixtures.Bound).
HEARTBEAT_INTERVAL = 1
SWEEP_INTERVAL = 1
PENDING_GRACE = 2
# [coordination]: their defaults, written out.
MEMBER_TIMEOUT = 10
MEMBERSHIP_REFRESH = 1.0
# What a daemon does from its exec to its first heartbeat and its
# catalog loaded, on an idle machine (imports, connections, plugins).
START_WORK = 10


class Cluster:
    """Config files and processes sharing one database and one bus."""

    def __init__(self, tmp_path, database_url, transport_url, **extra):
        self.tmp_path = tmp_path
        self.database_url = database_url
        self.port = fixtures.free_port()
        sections = {
            'DEFAULT': {'transport_url': transport_url,
                        'heartbeat_interval': HEARTBEAT_INTERVAL},
            'oslo_messaging_notifications': {'driver': 'messagingv2',
                                             'topics': 'notifications'},
            'watcher_decision_engine': {'sweep_interval': SWEEP_INTERVAL,
                                        'pending_grace': PENDING_GRACE},
            'watcher_applier': {'sweep_interval': SWEEP_INTERVAL,
                                'pending_grace': PENDING_GRACE},
            'coordination': {'member_timeout': MEMBER_TIMEOUT,
                             'membership_refresh': MEMBERSHIP_REFRESH},
        }
        for section, options in extra.items():
            sections.setdefault(section, {}).update(options)
        self.base = fixtures.write_config(
            tmp_path / 'watcher-ha.conf', fixtures.base_config(
                tmp_path, database_url, self.port, **sections))
        self.processes = {}
        # name -> its starts logged before its latest start.
        self._logged_before = {}
        fixtures.prepare_database(self.base)

    def _host_config(self, name, sections):
        path = self.tmp_path / ('%s.conf' % name)
        own = {section: dict(options) for section, options in
               sections.items()}
        own.setdefault('DEFAULT', {}).update({
            'host': name, 'log_file': str(self.tmp_path / (name + '.log'))})
        fixtures.write_config(path, own)
        return path

    def _starts_logged(self, name):
        """How many times the daemon ``name`` logged that it started."""
        try:
            text = (self.tmp_path / (name + '.log')).read_text()
        except FileNotFoundError:
            return 0
        return text.count(' started on %s\n' % name)

    def start(self, command, name, **sections):
        """Start ``watcher-ha-<command>`` as host ``name``, with
        ``sections`` ({section: {option: value}}) of its own over the
        cluster's: a daemon of another controller, on that controller's
        database node."""
        self._logged_before[name] = self._starts_logged(name)
        # The child keeps its own copy of the file descriptor.
        with open(self.tmp_path / (name + '.out'), 'w') as out:
            proc = children.popen(
                [os.path.join(fixtures.BIN, 'watcher-ha-' + command),
                 '--config-file', str(self.base),
                 '--config-file', str(self._host_config(name, sections))],
                stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        self.processes[name] = proc
        return proc

    def wait_registered(self, name, binary):
        """Until the daemon is a service the API lists ACTIVE and it has
        started: its heartbeat registers it before it loads its plugins
        into the catalog, which the API checks new audits against."""
        bound = fixtures.Bound(HEARTBEAT_INTERVAL, work=START_WORK)
        started = time.monotonic()
        while time.monotonic() < started + bound.seconds():
            services = requests.get(self.url + '/v1/services',
                                    timeout=10).json()['services']
            if any(s['host'] == name and s['name'] == binary
                   and s['status'] == 'ACTIVE' for s in services) and (
                    self._starts_logged(name)
                    > self._logged_before.get(name, 0)):
                return
            time.sleep(0.2)
        raise AssertionError('%s %s did not register and start within %s'
                             % (binary, name, bound))

    def start_daemons(self, engines=(), appliers=()):
        """Start these decision engines and appliers together, and return
        once each has registered (one after another, their start-ups
        would add up)."""
        started = ([(name, 'decision-engine') for name in engines]
                   + [(name, 'applier') for name in appliers])
        for name, command in started:
            self.start(command, name)
        for name, command in started:
            self.wait_registered(name, 'watcher-ha-' + command)

    def start_engine(self, name):
        self.start_daemons(engines=[name])

    def start_applier(self, name):
        self.start_daemons(appliers=[name])

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def kill(self, name, sig=signal.SIGKILL):
        os.killpg(self.processes[name].pid, sig)
        if sig == signal.SIGKILL:
            # Reaped at once: it may be started again under its name.
            self.processes[name].wait()

    def terminate(self, name, timeout=15):
        """SIGTERM; returns how long the process took to exit."""
        proc = self.processes[name]
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout)
        return time.monotonic() - started

    def signal_all(self, sig=signal.SIGTERM):
        """Send ``sig`` to every running daemon; return their processes."""
        running = [p for p in self.processes.values() if p.poll() is None]
        for proc in running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
        return running

    def wait_all(self, timeout=15):
        """Wait for every daemon to exit, SIGKILLing those that take
        longer than ``timeout`` s."""
        for proc in self.processes.values():
            fixtures.wait_or_kill(proc, timeout)


@contextlib.contextmanager
def cluster(tmp_path, database_url, transport_url, **extra):
    running = Cluster(tmp_path, database_url, transport_url, **extra)
    try:
        with fixtures.api_process(running.base, running.port):
            try:
                yield running
            finally:
                # SIGTERM every daemon at once, and before the API stops:
                # one after another, their shutdowns would add up.
                running.signal_all()
    finally:
        running.wait_all()


class Notifications:
    """Every notification published on the bus's 'notifications' topic."""

    def __init__(self, transport_url):
        self.transport = transport = (
            oslo_messaging.get_notification_transport(CONF,
                                                      url=transport_url))
        self.received = []
        # When each was received (naive UTC, as the database stores).
        self.times = []
        self.lock = threading.Lock()
        self.listener = oslo_messaging.get_notification_listener(
            transport, [oslo_messaging.Target(topic='notifications')],
            [self], executor='threading')
        self.listener.start()

    def _note(self, ctxt, publisher_id, event_type, payload, metadata):
        with self.lock:
            self.received.append((event_type, publisher_id, payload))
            self.times.append(models.utcnow())

    def reconnected_after(self, moment, timeout=60):
        """When the first notification after ``moment`` arrived (after a
        broker restart: when this listener was consuming again)."""
        def first():
            with self.lock:
                return next((t for t in self.times if t > moment), None)
        return fixtures.wait_for(first, timeout,
                                 'a notification after %s' % moment)

    info = error = warn = _note

    def stop(self):
        self.listener.stop()
        self.listener.wait()
        self.transport.cleanup()

    def stop_meanwhile(self):
        """Stop in a thread of its own, for a teardown that has other
        things to stop (this takes a second or so); join what it returns.
        """
        stopping = threading.Thread(target=self.stop)
        stopping.start()
        return stopping

    def of(self, uuid):
        with self.lock:
            return [(event, payload['watcher_object.data'])
                    for event, _, payload in self.received
                    if payload['watcher_object.data'].get('uuid') == uuid]


def cli(url, *args):
    result = fixtures.run(os.path.join(fixtures.BIN, 'watcher'),
                          *identity.watcher_cli_auth(url), *args, '-f',
                          'json', check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def state_of(url, kind, ident):
    return requests.get('%s/v1/%s/%s' % (url, kind, ident),
                        timeout=10).json()['state']
