"""The systemd units of etc/systemd: systemd-analyze verifies them and
rates them OK for security, and each daemon, started with its unit's
ExecStart and Environment, tells systemd it is ready (READY=1 on
NOTIFY_SOCKET, as Type=notify expects) once it has started, from its main
process, and never when it cannot start; then feeds the watchdog
(WATCHDOG=1) while it works, and not while it does not (the API's workers
stopped).

No systemd instance runs the tests (containers have none): the test plays
its part, listening on the datagram socket systemd would hand the unit.
"""

import contextlib
import os
import pathlib
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import time

import pytest
import requests
from oslo_config import cfg
from oslo_service import opts

from tests import servers
from tests.functional import fixtures
from tools import children
from watcher_ha.cmd import gunicorn_hooks

pytestmark = pytest.mark.functional

UNIT_DIR = pathlib.Path(__file__).resolve().parents[2] / 'etc' / 'systemd'
UNITS = sorted(UNIT_DIR.glob('*.service'))
# What the units name, replaced by what this machine has.
INSTALLED_BIN = '/usr/bin/'
CONFIG_FILE = '/etc/watcher-ha/watcher-ha.conf'
BIND = '0.0.0.0:9322'
# The log line of a daemon whose start is complete.
STARTED = '%s started on'


def settings(path):
    """{(section, key): [values]} of a unit file."""
    found, section = {}, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if line.startswith('['):
            section = line.strip('[]')
            continue
        key, _, value = line.partition('=')
        found.setdefault((section, key), []).append(value)
    return found


def seconds(value):
    assert value.endswith('s'), value
    return float(value[:-1])


def program(unit):
    """The unit's ExecStart program, e.g. watcher-ha-applier."""
    [exec_start] = settings(unit)[('Service', 'ExecStart')]
    return os.path.basename(shlex.split(exec_start)[0])


def here(path):
    """``path`` (an installed program) as this venv has it."""
    assert path.startswith(INSTALLED_BIN), path
    return os.path.join(fixtures.BIN, path[len(INSTALLED_BIN):])


def systemd_tool(name):
    path = shutil.which(name)
    if path is None:
        servers.unavailable('systemd', '%s not found' % name)
    return path


def test_units_are_what_operators_expect():
    assert [unit.name for unit in UNITS] == [
        'watcher-ha-api.service', 'watcher-ha-applier.service',
        'watcher-ha-decision-engine.service']
    for unit in UNITS:
        found = settings(unit)
        assert found[('Service', 'Type')] == ['notify'], unit.name
        assert found[('Service', 'Restart')] == ['on-failure'], unit.name
        assert found[('Service', 'User')] == ['watcher-ha'], unit.name
        assert CONFIG_FILE in ' '.join(
            found[('Service', 'ExecStart')]
            + found.get(('Service', 'Environment'), [])), unit.name


def test_each_unit_has_a_watchdog_fed_well_within_it():
    """The daemons feed it every half of WatchdogSec; the API's master
    gives a worker ANSWER_TIMEOUT to answer before it does."""
    for unit in UNITS:
        [watchdog] = settings(unit)[('Service', 'WatchdogSec')]
        assert seconds(watchdog) / 2 > gunicorn_hooks.ANSWER_TIMEOUT, (
            unit.name)


# systemd-analyze security's levels, best first.
LEVELS = ['PERFECT', 'SAFE', 'OK', 'MEDIUM', 'EXPOSED', 'UNSAFE',
          'DANGEROUS']


def test_systemd_analyze_security_rates_each_unit_ok():
    analyze = systemd_tool('systemd-analyze')
    for unit in UNITS:
        found = subprocess.run(
            [analyze, 'security', '--offline=true', '--no-pager',
             str(unit)], capture_output=True, text=True, timeout=60)
        assert found.returncode == 0, found.stderr
        [overall] = [line for line in found.stdout.splitlines()
                     if 'Overall exposure level' in line]
        exposure, level = overall.split(':')[1].split()[:2]
        assert LEVELS.index(level) <= LEVELS.index('OK'), overall
        assert float(exposure) < 2.0, overall


def test_stop_timeouts_exceed_the_drain_they_wait_for():
    """systemd SIGKILLs a unit still running TimeoutStopSec after
    SIGTERM: each unit waits longer than its daemon may take to drain."""
    conf = cfg.ConfigOpts()
    opts.register_service_opts(conf)
    conf([])
    for unit in UNITS:
        found = settings(unit)
        [stop] = found[('Service', 'TimeoutStopSec')]
        if program(unit) == 'gunicorn':
            [exec_start] = found[('Service', 'ExecStart')]
            args = shlex.split(exec_start)
            drain = float(args[args.index('--graceful-timeout') + 1])
        else:
            # oslo.service exits the daemon by itself after this long.
            drain = conf.graceful_shutdown_timeout
        assert seconds(stop) > drain, unit.name


def test_systemd_analyze_verify_finds_nothing(tmp_path):
    """Verified as installed, with the programs where this venv has them
    (systemd-analyze checks that ExecStart's program exists)."""
    analyze = systemd_tool('systemd-analyze')
    for unit in UNITS:
        lines = []
        for line in unit.read_text().splitlines():
            if line.startswith('ExecStart='):
                command = line[len('ExecStart='):]
                line = 'ExecStart=' + here(command.split(' ', 1)[0]) + (
                    ' ' + command.split(' ', 1)[1])
            lines.append(line)
        (tmp_path / unit.name).write_text('\n'.join(lines) + '\n')
    found = subprocess.run(
        [analyze, 'verify', '--man=no',
         *sorted(str(path) for path in tmp_path.glob('*.service'))],
        capture_output=True, text=True, timeout=60)
    # Unknown keys and bad values are only warnings: any output fails.
    assert (found.returncode, found.stdout, found.stderr) == (0, '', '')


def test_sysusers_creates_the_units_user(tmp_path):
    sysusers = systemd_tool('systemd-sysusers')
    (tmp_path / 'etc').mkdir()
    subprocess.run([sysusers, '--root', str(tmp_path),
                    str(UNIT_DIR / 'watcher-ha.sysusers.conf')],
                   check=True, capture_output=True, timeout=60)
    [entry] = (tmp_path / 'etc' / 'passwd').read_text().splitlines()
    assert entry.split(':')[0] == 'watcher-ha'
    assert entry.split(':')[5] == '/var/lib/watcher-ha'


class NotifySocket:
    """The socket systemd listens on for a Type=notify unit, with the
    sender's credentials (systemd checks NotifyAccess=main with them)."""

    def __init__(self, path):
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.settimeout(0.2)

    def receive(self):
        """(message, sender's pid), or None if nothing came."""
        ucred = struct.Struct('iII')
        try:
            message, ancillary, _, _ = self.sock.recvmsg(
                4096, socket.CMSG_SPACE(ucred.size))
        except TimeoutError:
            return None
        [pid] = [ucred.unpack(data)[0] for level, kind, data in ancillary
                 if (level, kind) == (socket.SOL_SOCKET,
                                      socket.SCM_CREDENTIALS)]
        return message.decode().split('\n'), pid

    def close(self):
        self.sock.close()


class Unit:
    """A unit's service, started as systemd would from its file: its
    ExecStart and Environment, pointed at the test's config file and
    programs, NOTIFY_SOCKET set."""

    def __init__(self, unit, tmp_path, config, watchdog=None):
        self.unit = unit
        self.found = settings(unit)
        self.tmp_path = tmp_path
        self.port = fixtures.free_port()
        self.notify = NotifySocket(tmp_path / 'notify')
        [exec_start] = self.found[('Service', 'ExecStart')]
        args = [arg.replace(CONFIG_FILE, str(config)).replace(
                BIND, '127.0.0.1:%d' % self.port)
                for arg in shlex.split(exec_start)]
        self.command = [here(args[0])] + args[1:]
        self.env = dict(os.environ, NOTIFY_SOCKET=self.notify.path)
        self.env.pop('WATCHDOG_USEC', None)
        self.env.pop('WATCHDOG_PID', None)
        if watchdog is not None:
            # What systemd sets for WatchdogSec=<watchdog>; the pid it
            # would name is the main process's, which this one will be.
            self.env['WATCHDOG_USEC'] = str(int(watchdog * 1e6))
        # systemd creates /run/<RuntimeDirectory> for the service, empty:
        # here a fresh directory in its place.
        runtime = {}
        for name in self.found.get(('Service', 'RuntimeDirectory'), []):
            runtime['/run/' + name] = str(tmp_path / ('run-' + name))
            os.makedirs(runtime['/run/' + name])
        for assignment in self.found.get(('Service', 'Environment'), []):
            name, _, value = assignment.partition('=')
            value = value.replace(CONFIG_FILE, str(config))
            self.env[name] = runtime.get(value, value)
        self.proc = None

    @property
    def gunicorn(self):
        return os.path.basename(self.command[0]) == 'gunicorn'

    @property
    def output(self):
        """What it wrote: on stdout and stderr (the journal, under
        systemd), and in its log file."""
        log = self.tmp_path / 'watcher-ha.log'
        return (self.tmp_path / 'out').read_text() + (
            log.read_text() if log.exists() else '')

    def start(self):
        with open(self.tmp_path / 'out', 'w') as out:
            self.proc = children.popen(
                self.command, env=self.env, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout=60):
        """The READY=1 datagram's sender pid; fails if the process exits
        or sends nothing within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            received = self.notify.receive()
            if received is not None and 'READY=1' in received[0]:
                return received[1]
            assert self.proc.poll() is None, (
                '%s exited with %s before READY=1:\n%s' % (
                    self.unit.name, self.proc.returncode, self.output))
        raise AssertionError('no READY=1 from %s within %s s:\n%s' % (
            self.unit.name, timeout, self.output))

    def pings(self, seconds):
        """The senders of the WATCHDOG=1 received within ``seconds``."""
        senders = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            received = self.notify.receive()
            if received is not None and 'WATCHDOG=1' in received[0]:
                senders.append(received[1])
        return senders

    def children(self):
        """The main process's children (gunicorn's workers)."""
        path = '/proc/%d/task/%d/children' % (self.proc.pid, self.proc.pid)
        with open(path) as listed:
            return [int(pid) for pid in listed.read().split()]

    def stop(self):
        """SIGTERM as systemd sends it (KillMode); returns the seconds
        until the main process exited."""
        started = time.monotonic()
        if self.found.get(('Service', 'KillMode')) == ['mixed']:
            os.kill(self.proc.pid, signal.SIGTERM)
        else:
            os.killpg(self.proc.pid, signal.SIGTERM)
        [timeout] = self.found[('Service', 'TimeoutStopSec')]
        try:
            self.proc.wait(seconds(timeout))
        finally:
            self.kill()
        return time.monotonic() - started

    def kill(self):
        """What systemd does last: SIGKILL whatever is left of it."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.notify.close()


def _units(tmp_path, prepared, watchdog=None):
    """A Unit per unit file, each in its own directory with its own log,
    all on one database (migrated if ``prepared``), with systemd's
    watchdog at ``watchdog`` seconds if given."""
    config = fixtures.base_config(tmp_path)
    if prepared:
        fixtures.prepare_database(fixtures.write_config(
            tmp_path / 'watcher-ha.conf', config))
    units = []
    for unit in UNITS:
        directory = tmp_path / unit.stem
        directory.mkdir()
        config['DEFAULT']['log_file'] = str(directory / 'watcher-ha.log')
        units.append(Unit(unit, directory, fixtures.write_config(
            directory / 'watcher-ha.conf', config), watchdog))
    return units


def test_each_unit_reports_ready_once_started(tmp_path):
    units = _units(tmp_path, prepared=True)
    for unit in units:
        unit.start()
    try:
        for unit in units:
            sender = unit.wait_ready()
            # NotifyAccess=main: systemd ignores any other sender.
            assert sender == unit.proc.pid, unit.unit.name
            if unit.gunicorn:
                # Loaded (--preload) and listening: it serves at once.
                answer = requests.get(
                    'http://127.0.0.1:%d/' % unit.port, timeout=30)
                assert answer.status_code == 200, unit.output
            else:
                # Its start was complete when it said so.
                assert STARTED % program(unit.unit) in unit.output
        for unit in units:
            # Within TimeoutStopSec, and cleanly.
            unit.stop()
            assert unit.proc.returncode == 0, unit.output
    finally:
        for unit in units:
            unit.kill()


# The watchdog the tests give the units: fed every second.
WATCHDOG = 2.0


def test_each_unit_feeds_the_watchdog_while_it_works(tmp_path):
    units = _units(tmp_path, prepared=True, watchdog=WATCHDOG)
    for unit in units:
        unit.start()
    try:
        for unit in units:
            unit.wait_ready()
        for unit in units:
            # From the main process (NotifyAccess=main), every half of
            # the watchdog's timeout.
            senders = unit.pings(3 * WATCHDOG)
            assert len(senders) >= 2, (unit.unit.name, unit.output)
            assert set(senders) == {unit.proc.pid}, unit.unit.name
        [api] = [unit for unit in units if unit.gunicorn]
        # Workers that answer nothing: the master stops feeding it, and
        # systemd would restart the unit; it feeds it again once they
        # answer.
        workers = api.children()
        assert workers
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        try:
            api.pings(WATCHDOG)   # one already under way
            # The master's GET / waits ANSWER_TIMEOUT, then it says why.
            assert api.pings(gunicorn_hooks.ANSWER_TIMEOUT
                             + 2 * WATCHDOG) == []
        finally:
            for pid in workers:
                os.kill(pid, signal.SIGCONT)
        assert api.pings(3 * WATCHDOG), api.output
        assert 'Stalled: the API workers' in api.output, api.output
    finally:
        for unit in units:
            unit.kill()


def test_a_unit_that_cannot_start_never_reports_ready(tmp_path):
    """On an un-migrated database each exits, saying what to run,
    without READY=1: systemctl start fails instead of succeeding."""
    units = _units(tmp_path, prepared=False)
    for unit in units:
        unit.start()
    try:
        for unit in units:
            assert unit.proc.wait(60) != 0, unit.unit.name
            assert unit.notify.receive() is None, unit.unit.name
            assert 'watcher-ha-db-manage upgrade' in unit.output, (
                unit.output)
    finally:
        for unit in units:
            unit.kill()
