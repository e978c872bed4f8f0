#!/usr/bin/env python3
"""`make demo`: watcher_ha drains a compute host of a simulated cloud.

watcher-ha-all-in-one runs the API, a decision engine and an applier in one
process, with a simulated cloud (Keystone, Nova, Placement, Nova's
notifications) embedded, on SQLite and the in-process message bus: no server
is needed. The API authenticates with keystonemiddleware against the
embedded Keystone, whose catalog lists it (infra-optim, instance-ha). The
real `watcher` CLI logs in there, creates a host_maintenance audit, shows
the action plan it becomes and starts it; the real `openstack` CLI shows
the cloud before and after. Everything lives under ./demo-state (or
--state-dir), which each run starts afresh.

It drives only the all-in-one it started: it waits until that process
listens on the API's port before it calls it, so that a leftover
all-in-one of an earlier run on the same port is never taken for it, and
a start that fails (a port taken) stops the demo with that process's own
output, kept in watcher-ha-all-in-one.out.
"""

import argparse
import contextlib
import os
import shutil
import signal
import json
import socket
import subprocess
import sys
import time
import urllib.request

import psutil
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

import children
from machine_load import slowdown
from watcher_ha.simulator import scenario

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
STATE = os.path.join(ROOT, 'demo-state')
# Where the all-in-one's own output (stdout and stderr) goes: what it says
# before its log is set up, a port it cannot bind for one.
OUTPUT = 'watcher-ha-all-in-one.out'
# Seconds the all-in-one has to listen and answer, on an idle machine:
# every wait of the demo is stretched by the machine's slowdown().
START_TIMEOUT = 60


def free_port(preferred=9322):
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', preferred))
        except OSError:
            sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def keystone_options(sim_port, user):
    """Password authentication of ``user`` at the embedded Keystone."""
    return ('auth_type = password\n'
            'auth_url = http://127.0.0.1:%d/identity/v3\n'
            'username = %s\npassword = %s\nproject_name = %s\n'
            'user_domain_name = Default\nproject_domain_name = Default\n'
            % (sim_port, user['name'], user['password'], user['project']))


def write_config(port, sim_port, cloud, admin):
    """The embedded default (SQLite, in-process bus, keystone auth for the
    API) with a simulated cloud: the API checks tokens at the embedded
    Keystone as its service user; Nova and Placement are reached through
    that Keystone's catalog."""
    path = os.path.join(STATE, 'watcher-ha.conf')
    with open(path, 'w') as conf:
        conf.write('[DEFAULT]\nstate_path = %s\nauth_strategy = keystone\n'
                   'transport_url = fake://\nlog_file = %s\n\n'
                   '[api]\nhost = 127.0.0.1\nport = %d\n\n'
                   '[simulator]\nscenario = %s\nport = %d\n\n'
                   '[watcher_applier]\npoll_interval = 0.5\n\n'
                   '[keystone_authtoken]\nwww_authenticate_uri = '
                   'http://127.0.0.1:%d/identity/v3\n%s\n'
                   '[nova]\n%s\n[placement]\n%s'
                   % (STATE, os.path.join(STATE, 'watcher-ha.log'), port,
                      cloud, sim_port, sim_port,
                      keystone_options(sim_port, SERVICE_USER),
                      keystone_options(sim_port, admin),
                      keystone_options(sim_port, admin)))
    return path


def cli_environment(sim_port, admin):
    """What the CLIs log in with: the admin at the embedded Keystone,
    nothing from the caller's OS_* variables or clouds.yaml."""
    return {'PATH': os.environ.get('PATH', ''), 'HOME': STATE,
            'OS_AUTH_URL': 'http://127.0.0.1:%d/identity/v3' % sim_port,
            'OS_USERNAME': admin['name'], 'OS_PASSWORD': admin['password'],
            'OS_PROJECT_NAME': admin['project'],
            'OS_USER_DOMAIN_NAME': 'Default',
            'OS_PROJECT_DOMAIN_NAME': 'Default',
            'OS_IDENTITY_API_VERSION': '3'}


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


def failed(message, output):
    """Stop the demo: ``message``, then the end of the all-in-one's own
    output (the file ``output``), which names it."""
    try:
        with open(output) as said:
            tail = said.read()[-3000:].rstrip()
    except OSError:
        tail = ''
    sys.exit('%s\nwatcher-ha-all-in-one\'s output (%s):\n%s'
             % (message, output, tail or '(nothing)'))


def listens(pid, port):
    """Whether the process ``pid`` listens on TCP ``port``."""
    try:
        sockets = psutil.Process(pid).net_connections('tcp')
    except psutil.NoSuchProcess:
        return False
    return any(s.status == psutil.CONN_LISTEN and s.laddr.port == port
               for s in sockets)


def wait_serving(endpoint, port, proc, output, timeout=START_TIMEOUT):
    """Until ``proc`` listens on ``port`` and ``endpoint`` answers. Only
    then is what answers there ours: a leftover all-in-one on that port
    answers too, while ours fails to bind it and exits."""
    timeout *= slowdown()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            failed('watcher-ha-all-in-one exited with status %s before it '
                   'served on port %d' % (proc.returncode, port), output)
        if listens(proc.pid, port):
            try:
                with urllib.request.urlopen(endpoint + '/',  # noqa: S310
                                            timeout=5):
                    return
            except OSError:
                pass
        time.sleep(0.2)
    failed('watcher-ha-all-in-one did not serve on port %d within %.0f s'
           % (port, timeout), output)


def watcher(env, *args, version=None, quiet=False):
    """The watcher CLI, logged in with ``env`` (cli_environment): it finds
    the API in the catalog."""
    command = [os.path.join(BIN, 'watcher')]
    if version:
        command += ['--os-infra-optim-api-version', version]
    command += list(args)
    result = children.run(command, env=env, text=True,
                          capture_output=True, timeout=60 * slowdown())
    if not quiet:
        shown = ' '.join(['watcher'] + (['--os-infra-optim-api-version',
                                          version] if version else [])
                         + list(args))
        print('\n$ %s' % shown, flush=True)
        print((result.stdout + result.stderr).rstrip(), flush=True)
    return result


def field(env, kind, ident, name):
    """One field of an object, as the CLI shows it (JSON output)."""
    out = watcher(env, kind, 'show', ident, '-f', 'json',
                  quiet=True).stdout
    return json.loads(out)[name]


def wait_for_model(env, timeout=60):
    """Until the decision engine's compute model has had its first full
    sync (the audit would wait for it anyway; this shows it)."""
    auth = v3.Password(
        auth_url=env['OS_AUTH_URL'], username=env['OS_USERNAME'],
        password=env['OS_PASSWORD'], project_name=env['OS_PROJECT_NAME'],
        user_domain_name='Default', project_domain_name='Default')
    session = ks_session.Session(auth=auth)
    timeout *= slowdown()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        resp = session.get(
            '/v1/data_model?data_model_type=compute', raise_exc=False,
            endpoint_filter={'service_type': 'infra-optim'},
            headers={'OpenStack-API-Version':
                     'infra-optim 1.7, watcher-ha 1.1'}, timeout=5)
        if resp.status_code == 200 and resp.json().get('context'):
            return
        time.sleep(0.5)
    sys.exit('The decision engine has no compute model after %.0f s; see '
             '%s' % (timeout, os.path.join(STATE, 'watcher-ha.log')))


def wait_for_state(env, kind, ident, states, timeout=30):
    """Poll with the CLI until the object reaches one of ``states``."""
    timeout *= slowdown()
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = field(env, kind, ident, 'State')
        if state in states:
            print('   ... %s %s is %s' % (kind, ident, state), flush=True)
            return state
        time.sleep(0.5)
    sys.exit('%s %s still %s after %.0f s' % (kind, ident, state, timeout))


HOSTS, SERVERS, SEED = 6, 24, 42
# Live migrations take a server's RAM divided by this (seconds).
BANDWIDTH_MB_PER_S = 4096
MAINTAINED = 'compute-0002'
# The API's user at the embedded Keystone (keystonemiddleware validates
# tokens as it), in the service project as devstack makes such users.
SERVICE_USER = {'name': 'watcher', 'password': 'watcher-secret',
                'project': 'service', 'roles': ['admin', 'service']}


def write_cloud():
    spec = scenario.generate(HOSTS, SERVERS, SEED)
    spec['bandwidth_mb_per_s'] = BANDWIDTH_MB_PER_S
    spec['users'] = [SERVICE_USER]
    path = os.path.join(STATE, 'cloud.yaml')
    scenario.dump(spec, path)
    credentials = spec['credentials']
    return path, {'name': credentials['username'],
                  'password': credentials['password'],
                  'project': credentials['project']}


def openstack(env, *args):
    """The real openstack CLI, logged in with ``env``."""
    command = [os.path.join(BIN, 'openstack')]
    result = children.run(command + list(args), env=env, text=True,
                          capture_output=True, timeout=60 * slowdown())
    print('\n$ openstack %s' % ' '.join(args), flush=True)
    print((result.stdout + result.stderr).rstrip(), flush=True)


def main():
    global STATE
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--port', type=int,
                        help='the API\'s port (default: 9322 if free)')
    parser.add_argument('--simulator-port', type=int,
                        help='the simulated cloud\'s port (default: 8778 '
                             'if free); demos run side by side (the tests) '
                             'each need their own')
    parser.add_argument('--state-dir', default=STATE,
                        help='where the state and logs go (emptied first)')
    args = parser.parse_args()
    STATE = os.path.abspath(args.state_dir)
    shutil.rmtree(STATE, ignore_errors=True)
    os.makedirs(STATE)
    port = args.port or free_port()
    sim_port = args.simulator_port or free_port(8778)
    cloud, admin = write_cloud()
    config = write_config(port, sim_port, cloud, admin)
    env = cli_environment(sim_port, admin)
    endpoint = 'http://127.0.0.1:%d' % port
    for step in ('upgrade', 'sync'):
        children.run([os.path.join(BIN, 'watcher-ha-db-manage'),
                        '--config-file', config, step], check=True,
                       stdout=subprocess.DEVNULL)
    output = os.path.join(STATE, OUTPUT)
    with open(output, 'w') as out:
        service = children.popen(
            [os.path.join(BIN, 'watcher-ha-all-in-one'), '--config-file',
             config], stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        wait_serving(endpoint, port, service, output)
        print('watcher-ha-all-in-one (API, decision engine, applier) is '
              'serving on %s,\nwith a simulated cloud of %d compute hosts '
              'and %d servers on port %d, whose Keystone the API checks '
              'tokens at\nand the CLIs log in to (admin/%s);\nstate and '
              'log in %s.'
              % (endpoint, HOSTS, SERVERS, sim_port, admin['password'],
                 STATE), flush=True)
        openstack(env, 'compute', 'service', 'list',
                  '--service', 'nova-compute', '-c', 'Host', '-c',
                  'Status', '-c', 'State')
        openstack(env, 'server', 'list',
                  '--all-projects', '--host', MAINTAINED, '--long', '-c',
                  'Name', '-c', 'Status', '-c', 'Flavor', '-c', 'Host')
        watcher(env, 'goal', 'list')
        watcher(env, 'strategy', 'list', '--goal',
                'cluster_maintaining')
        wait_for_model(env)
        watcher(env, 'audit', 'create', '-g', 'cluster_maintaining',
                '-s', 'host_maintenance', '-t', 'ONESHOT',
                '-p', 'maintenance_node=' + MAINTAINED,
                '--name', 'drain-' + MAINTAINED)
        wait_for_state(env, 'audit', 'drain-' + MAINTAINED,
                       ('SUCCEEDED', 'FAILED'))
        audit = field(env, 'audit', 'drain-' + MAINTAINED, 'UUID')
        watcher(env, 'actionplan', 'list', '--audit', audit)
        plan = json.loads(watcher(
            env, 'actionplan', 'list', '--audit', audit, '-f', 'json',
            quiet=True).stdout)[0]['UUID']
        watcher(env, 'action', 'list', '--action-plan', plan,
                '--detail', '-c', 'UUID', '-c', 'Parents', '-c', 'Action',
                '-c', 'Parameters', '-c', 'State')
        watcher(env, 'actionplan', 'start', plan)
        state = wait_for_state(env, 'actionplan', plan,
                               ('SUCCEEDED', 'FAILED', 'CANCELLED'),
                               timeout=120)
        watcher(env, 'action', 'list', '--action-plan', plan, '-c',
                'UUID', '-c', 'Action', '-c', 'State')
        openstack(env, 'compute', 'service', 'list',
                  '--service', 'nova-compute', '--long', '-c', 'Host',
                  '-c', 'Status', '-c', 'State', '-c', 'Disabled Reason')
        openstack(env, 'server', 'list',
                  '--all-projects', '--host', MAINTAINED)
        watcher(env, 'service', 'list')
        if state != 'SUCCEEDED':
            sys.exit('The action plan ended %s; see %s'
                     % (state, os.path.join(STATE, 'watcher-ha.log')))
        print('\n%s is drained: its compute service is disabled and its '
              'servers run elsewhere.' % MAINTAINED)
    finally:
        # It may have ended already (a port it could not bind).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(service.pid, signal.SIGTERM)
        service.wait(timeout=15)


if __name__ == '__main__':
    main()
