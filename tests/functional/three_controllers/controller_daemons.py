"""Our three daemons on each controller of the three controllers' cluster
(tools/controllers.py), configured as a deployment's are, and counted
among their controller's processes.

A deployment runs watcher-ha-api, watcher-ha-decision-engine and
watcher-ha-applier on every controller, all three under the controller's
``[DEFAULT] host``; each reaches the database through its own controller's
Galera node, the bus through all three brokers (controllers.urls lists
its own first, but oslo.messaging shuffles a URL's hosts: each connection
goes to any of them) and the coordination backend (coordination_urls).
The simulated cloud is not a controller's: it is shared, as a cloud's
APIs are.

Each daemon runs in a session of its own, recorded with the controller's
backends (controllers.record, as DIR/cN/<daemon>.pgid): killing a
controller whole (``controllers.signal_all(c, SIGKILL)``) or freezing it
(SIGSTOP) reaches its daemons at the same instant as its Galera, RabbitMQ
and etcd processes, as a controller losing power or hanging does.
"""

import contextlib
import os
import pathlib
import signal
import subprocess
import time

import requests
from oslo_messaging import opts as messaging_opts

from tests.functional import daemons
from tests.functional import fixtures
from tools import children
from tools import controllers
from tools import partitions

# In the order a controller starts them: the API first, so that the
# others' registration can be read from it.
DAEMONS = ('api', 'decision-engine', 'applier')


def coordination_urls(members):
    """{controller name: its daemons' [coordination] backend_url}: the
    etcd cluster, through the controller's own HAProxy in front of the
    three members (controllers.urls), as a deployment's daemons reach it.
    The one place that says which coordination backend the scenarios
    run on."""
    return {c.name: controllers.urls(c, members)['coordination']
            for c in members}


def test_process_messaging(config):
    """The test process's own bus options as the controllers' daemons'
    (controllers.rabbit_options), through the ``config`` fixture: a
    queue or exchange it declares on their brokers must be declared as
    theirs are, or the broker refuses the one declared second."""
    for group, options in messaging_opts.list_opts():
        config.conf.register_opts(options, group=group)
    config.config(group='oslo_messaging_rabbit',
                  **controllers.rabbit_options())


def binary(daemon):
    return 'watcher-ha-' + daemon


class Deployment:
    """Config files and processes of the daemons of ``members``, sharing
    the database whose URL through each controller's node is
    ``database_urls`` ({controller name: URL})."""

    def __init__(self, tmp_path, members, database_urls, **sections):
        self.tmp_path = tmp_path
        self.members = {c.name: c for c in members}
        self.database_urls = database_urls
        self.coordination = coordination_urls(members)
        self.api_ports = {c.name: fixtures.free_port() for c in members}
        # What every daemon shares: the intervals the tests' waits are
        # derived from (those of daemons.Cluster), and the test's own.
        shared = {
            'DEFAULT': {'auth_strategy': 'noauth',
                        'heartbeat_interval': daemons.HEARTBEAT_INTERVAL},
            'oslo_messaging_notifications': {
                'driver': 'messagingv2', 'topics': 'notifications',
                'retry': controllers.NOTIFICATIONS_RETRY},
            # Every user of the controllers' brokers declares its queues
            # and exchanges alike, or the brokers refuse the later ones.
            'oslo_messaging_rabbit': controllers.rabbit_options(),
            'watcher_decision_engine': {
                'sweep_interval': daemons.SWEEP_INTERVAL,
                'pending_grace': daemons.PENDING_GRACE},
            'watcher_applier': {'sweep_interval': daemons.SWEEP_INTERVAL,
                                'pending_grace': daemons.PENDING_GRACE},
            'coordination': {
                'member_timeout': daemons.MEMBER_TIMEOUT,
                'membership_refresh': daemons.MEMBERSHIP_REFRESH},
        }
        for section, options in sections.items():
            shared.setdefault(section, {}).update(options)
        first = members[0].name
        self.base = fixtures.write_config(
            tmp_path / 'watcher-ha.conf', fixtures.base_config(
                tmp_path, database_urls[first], self.api_ports[first],
                **shared))
        # What an operator does once, from any controller.
        fixtures.prepare_database(self.base)
        # (controller name, daemon) -> its Popen, while it may run.
        self.processes = {}
        # (controller name, daemon) -> its starts logged before its last.
        self._logged_before = {}
        # When the last start() returned (time.monotonic()).
        self.last_started = None

    def url(self, controller):
        """The API of ``controller`` (a name)."""
        return 'http://127.0.0.1:%d' % self.api_ports[controller]

    def _config(self, controller, daemon):
        own = controllers.urls(self.members[controller],
                               self.members.values())
        path = self.tmp_path / ('%s-%s.conf' % (controller, daemon))
        fixtures.write_config(path, {
            'DEFAULT': {'host': controller,
                        'transport_url': own['transport'],
                        'log_file': str(self._log(controller, daemon))},
            'database': {'connection': self.database_urls[controller]},
            'api': {'port': self.api_ports[controller]},
            'coordination': {'backend_url': self.coordination[controller]},
        })
        return path

    def _log(self, controller, daemon):
        return self.tmp_path / ('%s-%s.log' % (controller, daemon))

    def _starts_logged(self, controller, daemon):
        try:
            text = self._log(controller, daemon).read_text()
        except FileNotFoundError:
            return 0
        return text.count('%s started on %s\n' % (binary(daemon),
                                                  controller))

    def start(self, names, which=DAEMONS):
        """Start the daemons ``which`` of the controllers ``names``, each
        in a session of its own counted among its controller's processes;
        returns once each answers (an API) or is listed ACTIVE and has
        started (the others). Together: one after another, their start-ups
        would add up."""
        for controller in names:
            for daemon in which:
                self._launch(controller, daemon)
        for controller in names:
            if 'api' in which:
                fixtures.wait_answering(
                    self.processes[controller, 'api'],
                    self.url(controller) + '/',
                    self.tmp_path / ('%s-api.out' % controller),
                    fixtures.Bound(work=fixtures.START_WORK),
                    'the API of ' + controller)
        for controller in names:
            for daemon in which:
                # An API logs no start: it answered above.
                self.wait_active(controller, daemon,
                                 started=daemon != 'api')
        self.last_started = time.monotonic()

    def wait_ring_settled(self):
        """Until the daemons started last know their peers: a daemon
        that joins its group takes the membership as unknown for
        member_timeout, and hands nothing over by the ring meanwhile
        (ha.rst, When the coordination backend restarts)."""
        time.sleep(max(0.0, self.last_started + daemons.MEMBER_TIMEOUT
                       + 2 * daemons.MEMBERSHIP_REFRESH - time.monotonic()))

    def _launch(self, controller, daemon):
        key = controller, daemon
        self._logged_before[key] = self._starts_logged(*key)
        with open(self.tmp_path / ('%s-%s.out' % key), 'a') as out:
            # In the controller's cgroup too, so that a partition of the
            # controller (tools/partitions.py) cuts its daemons off with
            # its backends.
            proc = children.popen(partitions.command_in(
                self.members[controller],
                [os.path.join(fixtures.BIN, binary(daemon)),
                 '--config-file', str(self.base),
                 '--config-file', str(self._config(*key))]),
                stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        self.processes[key] = proc
        controllers.record(self.members[controller], daemon, proc)

    def services(self, via=None):
        """GET /v1/services through ``via``'s API (a controller's name;
        the first whose API answers if None): {(host, binary): status}."""
        for name in [via] if via else self.api_ports:
            try:
                found = requests.get(self.url(name) + '/v1/services',
                                     timeout=10)
            except requests.RequestException:
                continue
            if found.status_code == 200:
                return {(s['host'], s['name']): s['status']
                        for s in found.json()['services']}
        raise AssertionError('no API answers GET /v1/services')

    def wait_active(self, controller, daemon, started=False, timeout=None,
                    via=None):
        """Until the API (``via``'s, see services) lists
        ``controller``'s ``daemon`` ACTIVE (and, with ``started``, it
        logged a start since it was last started)."""
        def active():
            if started and (self._starts_logged(controller, daemon)
                            <= self._logged_before.get((controller, daemon),
                                                       0)):
                return False
            with contextlib.suppress(AssertionError):
                return self.services(via).get(
                    (controller, binary(daemon))) == 'ACTIVE'
            return False
        fixtures.wait_for(active, timeout or fixtures.Bound(
            daemons.HEARTBEAT_INTERVAL, work=daemons.START_WORK),
            '%s of %s ACTIVE' % (binary(daemon), controller), every=0.3)

    def process_states(self, controller):
        """{daemon: its process's state letter (/proc: R, S, T for
        stopped...; 'gone' once it exited and was reaped)} of
        ``controller``'s daemons."""
        found = {}
        for (name, daemon), proc in self.processes.items():
            if name != controller:
                continue
            if proc.poll() is not None:
                found[daemon] = 'gone'
                continue
            stat = pathlib.Path('/proc/%d/stat' % proc.pid).read_text()
            # The state follows the command's name, in parentheses.
            found[daemon] = stat.rsplit(')', 1)[1].split()[0]
        return found

    def stop(self):
        """SIGTERM every daemon at once (thawed first), SIGKILL those
        that take more than 15 s, and forget them."""
        running = [key for key, proc in self.processes.items()
                   if proc.poll() is None]
        for key in running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.processes[key].pid, signal.SIGCONT)
                os.killpg(self.processes[key].pid, signal.SIGTERM)
        for key, proc in self.processes.items():
            fixtures.wait_or_kill(proc)
            controllers.forget(self.members[key[0]], key[1])


@contextlib.contextmanager
def deployment(tmp_path, members, database_urls, **sections):
    """A Deployment of ``members``, none of its daemons started; every
    one stopped on leaving."""
    made = Deployment(tmp_path, members, database_urls, **sections)
    try:
        yield made
    finally:
        made.stop()
