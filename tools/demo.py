#!/usr/bin/env python3
"""`make demo`: an audit becomes an action plan and the plan executes,
driven by the real `watcher` CLI against watcher-ha-all-in-one.

Everything runs embedded (the API, a decision engine and an applier in one
process; SQLite, the in-process message bus, no authentication) under
./demo-state, which each run starts afresh.
"""

import os
import shutil
import signal
import socket
import json
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
STATE = os.path.join(ROOT, 'demo-state')


def free_port(preferred=9322):
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', preferred))
        except OSError:
            sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def write_config(port):
    path = os.path.join(STATE, 'watcher-ha.conf')
    with open(path, 'w') as conf:
        conf.write('[DEFAULT]\nstate_path = %s\nauth_strategy = noauth\n'
                   'transport_url = fake://\nlog_file = %s\n\n'
                   '[api]\nhost = 127.0.0.1\nport = %d\n'
                   % (STATE, os.path.join(STATE, 'watcher-ha.log'), port))
    return path


def wait_for(url, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit('watcher-ha-all-in-one exited; see '
                     'demo-state/watcher-ha.log')
        try:
            with urllib.request.urlopen(url, timeout=1):  # noqa: S310
                return
        except OSError:
            time.sleep(0.2)
    sys.exit('watcher-ha-all-in-one did not start; see '
             'demo-state/watcher-ha.log')


def watcher(endpoint, *args, version=None, quiet=False):
    command = [os.path.join(BIN, 'watcher'), '--no-auth',
               '--os-endpoint-override', endpoint]
    if version:
        command += ['--os-infra-optim-api-version', version]
    command += list(args)
    env = {'PATH': os.environ.get('PATH', ''), 'HOME': STATE}
    result = subprocess.run(command, env=env, text=True,
                            capture_output=True, timeout=60)
    if not quiet:
        shown = ' '.join(['watcher'] + (['--os-infra-optim-api-version',
                                          version] if version else [])
                         + list(args))
        print('\n$ %s' % shown, flush=True)
        print((result.stdout + result.stderr).rstrip(), flush=True)
    return result


def field(endpoint, kind, ident, name):
    """One field of an object, as the CLI shows it (JSON output)."""
    out = watcher(endpoint, kind, 'show', ident, '-f', 'json',
                  quiet=True).stdout
    return json.loads(out)[name]


def wait_for_state(endpoint, kind, ident, states, timeout=30):
    """Poll with the CLI until the object reaches one of ``states``."""
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = field(endpoint, kind, ident, 'State')
        if state in states:
            print('   ... %s %s is %s' % (kind, ident, state), flush=True)
            return state
        time.sleep(0.5)
    sys.exit('%s %s still %s after %s s' % (kind, ident, state, timeout))


def main():
    shutil.rmtree(STATE, ignore_errors=True)
    os.makedirs(STATE)
    port = free_port()
    config = write_config(port)
    endpoint = 'http://127.0.0.1:%d' % port
    for step in ('upgrade', 'sync'):
        subprocess.run([os.path.join(BIN, 'watcher-ha-db-manage'),
                        '--config-file', config, step], check=True,
                       stdout=subprocess.DEVNULL)
    service = subprocess.Popen(
        [os.path.join(BIN, 'watcher-ha-all-in-one'), '--config-file',
         config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        wait_for(endpoint + '/', service)
        print('watcher-ha-all-in-one (API, decision engine, applier) is '
              'serving on %s, state in demo-state/.' % endpoint)
        watcher(endpoint, 'goal', 'list')
        watcher(endpoint, 'strategy', 'list', '--goal', 'dummy')
        watcher(endpoint, 'audit', 'create', '-g', 'dummy', '-s', 'dummy',
                '-t', 'ONESHOT', '-p', 'para1=2', '-p', 'para2=from the demo',
                '--name', 'demo-audit')
        wait_for_state(endpoint, 'audit', 'demo-audit',
                       ('SUCCEEDED', 'FAILED'))
        audit = field(endpoint, 'audit', 'demo-audit', 'UUID')
        watcher(endpoint, 'actionplan', 'list', '--audit', audit)
        plan = json.loads(watcher(
            endpoint, 'actionplan', 'list', '--audit', audit, '-f', 'json',
            quiet=True).stdout)[0]['UUID']
        watcher(endpoint, 'action', 'list', '--action-plan', plan)
        watcher(endpoint, 'actionplan', 'start', plan)
        wait_for_state(endpoint, 'actionplan', plan,
                       ('SUCCEEDED', 'FAILED', 'CANCELLED'))
        watcher(endpoint, 'action', 'list', '--action-plan', plan,
                '--detail')
        watcher(endpoint, 'service', 'list')
        watcher(endpoint, 'audit', 'create', '-g', 'dummy', '-t',
                'ONESHOT', '-i', '10')
    finally:
        os.killpg(service.pid, signal.SIGTERM)
        service.wait(timeout=15)


if __name__ == '__main__':
    main()
