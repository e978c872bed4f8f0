#!/usr/bin/env python3
"""`make demo`: watcher-ha-api on SQLite, driven by the real `watcher` CLI.

Everything runs embedded (SQLite, in-process message transport, no
authentication) under ./demo-state, which each run starts afresh.
"""

import os
import shutil
import signal
import socket
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
                   % (STATE, os.path.join(STATE, 'api.log'), port))
    return path


def wait_for(url, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit('watcher-ha-api exited; see demo-state/api.log')
        try:
            with urllib.request.urlopen(url, timeout=1):  # noqa: S310
                return
        except OSError:
            time.sleep(0.2)
    sys.exit('watcher-ha-api did not start; see demo-state/api.log')


def watcher(endpoint, *args, version=None):
    command = [os.path.join(BIN, 'watcher'), '--no-auth',
               '--os-endpoint-override', endpoint]
    if version:
        command += ['--os-infra-optim-api-version', version]
    command += list(args)
    shown = ' '.join(['watcher'] + (['--os-infra-optim-api-version',
                                      version] if version else [])
                     + list(args))
    print('\n$ %s' % shown, flush=True)
    env = {'PATH': os.environ.get('PATH', ''), 'HOME': STATE}
    result = subprocess.run(command, env=env, text=True,
                            capture_output=True, timeout=60)
    print((result.stdout + result.stderr).rstrip(), flush=True)
    return result


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
    api = subprocess.Popen(
        [os.path.join(BIN, 'watcher-ha-api'), '--config-file', config],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        wait_for(endpoint + '/', api)
        print('watcher-ha-api is serving on %s (SQLite in demo-state/).'
              % endpoint)
        watcher(endpoint, 'goal', 'list')
        watcher(endpoint, 'strategy', 'list', '--goal', 'dummy')
        watcher(endpoint, 'audittemplate', 'create', 'demo-template',
                'dummy', '-s', 'dummy', '-d', 'Created by make demo')
        watcher(endpoint, 'audit', 'create', '-a', 'demo-template',
                '-t', 'ONESHOT', '--name', 'demo-oneshot')
        watcher(endpoint, 'audit', 'create', '-g', 'dummy', '-s', 'dummy',
                '-t', 'CONTINUOUS', '-i', '*/5 * * * *', '--name',
                'demo-continuous', '-p', 'para1=7.5', version='1.7')
        watcher(endpoint, 'audit', 'list')
        watcher(endpoint, 'audit', 'update', 'demo-continuous', 'replace',
                'state=CANCELLED')
        watcher(endpoint, 'audit', 'create', '-g', 'dummy', '-t',
                'ONESHOT', '-i', '10')
        watcher(endpoint, 'actionplan', 'list')
        watcher(endpoint, 'scoringengine', 'list')
        print('\nThe audits stay PENDING: the decision engine and applier '
              'daemons that turn them into executed action plans are the '
              'next milestone.')
    finally:
        os.killpg(api.pid, signal.SIGTERM)
        api.wait(timeout=15)


if __name__ == '__main__':
    main()
