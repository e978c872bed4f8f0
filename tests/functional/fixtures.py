"""Running real watcher_ha processes for functional tests."""

import contextlib
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests

from tests.functional import identity
from tools import children
from tools.machine_load import slowdown

BIN = os.path.dirname(sys.executable)


# Scenarios whose database work others repeat on both databases run on
# MariaDB only, to keep the suite's time in bounds.
MARIADB_ONLY = pytest.mark.parametrize('database', ['mysql'], indirect=True)
# Pairs of scenarios that differ in one step (an applier killed mid-plan:
# the plan cancelled, or resumed) run one on each database.
POSTGRESQL_ONLY = pytest.mark.parametrize('database', ['postgresql'],
                                          indirect=True)


# How much longer than its parts a wait may take: a timer fires late
# and the check that sees its effect comes up to a polling period after
# it, and the load average trails the load by up to a minute.
MARGIN = 1.5


class Bound:
    """How long to wait for something: the ``timers`` it waits on (the
    seconds of heartbeat, sweep, lease, poll and grace intervals of the
    configuration the test wrote; the clock runs them whatever the load),
    plus ``work`` seconds of computing as on an idle machine, stretched
    by the machine's slowdown(), the sum times MARGIN.

    A fixed number of seconds fits neither: too short on a loaded
    machine, and says nothing of why it is that long."""

    def __init__(self, *timers, work):
        self.timers = timers
        self.work = work

    def seconds(self):
        return (sum(self.timers) + self.work * slowdown()) * MARGIN

    def __add__(self, seconds):
        """This bound and ``seconds`` more on the clock (a sleep the
        awaited thing also waits out)."""
        return Bound(*self.timers, seconds, work=self.work)

    __radd__ = __add__

    def __str__(self):
        return '%.0f s: timers %s, %s s of work at slowdown %.1f' % (
            self.seconds(), '+'.join('%g' % t for t in self.timers) or '0',
            self.work, slowdown())


def wait_for(check, timeout=20, what='condition', every=0.1):
    """Call ``check`` every ``every`` seconds until it returns something
    true, and return that; fail after ``timeout`` (a Bound, read again at
    each look, so that a load rising meanwhile extends it; or seconds),
    naming ``what`` was awaited."""
    started = time.monotonic()

    def deadline():
        return started + (timeout.seconds() if isinstance(timeout, Bound)
                          else timeout)
    while time.monotonic() < deadline():
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError('%s not reached within %s' % (
        what, timeout if isinstance(timeout, Bound) else '%s s' % timeout))


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def write_config(path, sections):
    """Write an oslo.config file from {section: {option: value}}."""
    lines = []
    for section, options in sections.items():
        lines.append('[%s]' % section)
        lines.extend('%s = %s' % item for item in options.items())
        lines.append('')
    path.write_text('\n'.join(lines))
    return path


# For what measures the API or the daemons without keystonemiddleware (the
# benchmarks, which send no token).
NOAUTH = {'auth_strategy': 'noauth'}


def base_config(tmp_path, database_url=None, port=None, **extra):
    """An embedded-mode config: SQLite under tmp_path, fake bus, and
    keystone auth, as a deployment runs: at the tests' Keystone
    (tests/functional/identity.py) unless ``extra`` names another
    [keystone_authtoken] or ``auth_strategy = noauth``."""
    sections = {
        'DEFAULT': {'state_path': str(tmp_path),
                    'auth_strategy': 'keystone',
                    'transport_url': 'fake://',
                    'rpc_response_timeout': 2,
                    'log_file': str(tmp_path / 'watcher-ha.log')},
        'api': {'host': '127.0.0.1', 'port': port or free_port()},
        'database': {'connection': database_url or
                     'sqlite:///%s/watcher_ha.sqlite' % tmp_path},
    }
    for section, options in extra.items():
        sections.setdefault(section, {}).update(options)
    if (sections['DEFAULT']['auth_strategy'] == 'keystone'
            and 'keystone_authtoken' not in sections):
        sections['keystone_authtoken'] = identity.authtoken_options(
            identity.keystone().url)
    return sections


def run(*command, check=True, timeout=120):
    return children.run(command, check=check, timeout=timeout,
                        capture_output=True, text=True)


def db_manage(config_file, *args):
    return run(os.path.join(BIN, 'watcher-ha-db-manage'), '--config-file',
               str(config_file), *args)


def prepare_database(config_file):
    """What an operator does before starting the services: migrate, then
    load the catalog of goals and strategies (tests/functional/prepare_db.py:
    both in one process)."""
    run(sys.executable, str(pathlib.Path(__file__).with_name('prepare_db.py')),
        '--config-file', str(config_file))


# What an API process (or an all-in-one) does from its exec until it
# answers, on an idle machine: imports, the database, its plugins.
START_WORK = 15


@contextlib.contextmanager
def api_process(config_file, port, timeout=None,
                binary='watcher-ha-api'):
    """Start ``binary`` (watcher-ha-api, or watcher-ha-all-in-one, whose
    API is on ``port`` too) and wait until its API answers: its URL; the
    process is stopped after. Its output goes to ``<config_file>.out``."""
    log = open(str(config_file) + '.out', 'w')
    proc = children.popen(
        [os.path.join(BIN, binary), '--config-file', str(config_file)],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = 'http://127.0.0.1:%d' % port
    try:
        wait_answering(proc, url + '/', str(config_file) + '.out',
                       timeout or Bound(work=START_WORK), binary)
        yield url
    finally:
        stop(proc)
        log.close()


def all_in_one(config_file, port, timeout=None):
    """watcher-ha-all-in-one, as api_process."""
    return api_process(config_file, port, timeout,
                       binary='watcher-ha-all-in-one')


def wait_answering(proc, url, log, timeout, name):
    """Wait until ``url`` answers 200 while ``proc`` runs; RuntimeError,
    with the process's output (the file ``log``), if it exits first or
    does not answer within ``timeout`` (a Bound, or seconds)."""
    started = time.monotonic()
    while True:
        if proc.poll() is not None:
            raise RuntimeError('%s exited with %s:\n%s' % (
                name, proc.returncode, pathlib.Path(log).read_text()))
        with contextlib.suppress(requests.RequestException):
            if requests.get(url, timeout=2).status_code == 200:
                return
        if time.monotonic() > started + (
                timeout.seconds() if isinstance(timeout, Bound)
                else timeout):
            raise RuntimeError('%s did not answer on %s within %s'
                               % (name, url, timeout))
        time.sleep(0.1)


def stop(proc, timeout=15):
    if proc.poll() is not None:
        return proc.returncode
    os.killpg(proc.pid, signal.SIGTERM)
    return wait_or_kill(proc, timeout)


def wait_or_kill(proc, timeout=15):
    """Wait for ``proc`` to exit; SIGKILL its group after ``timeout`` s."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait()


def api_workers(config_file):
    """The worker processes of the watcher-ha-api started with
    ``config_file`` (oslo.service retitles them: the launcher's title
    keeps its command line, its workers' do not)."""
    import psutil
    for proc in psutil.process_iter(['cmdline']):
        if str(config_file) in ' '.join(proc.info['cmdline'] or []):
            return proc.children()
    return []
