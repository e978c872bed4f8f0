"""The simulated cloud for functional tests: the simulator as a process
of its own, and a novaclient that talks to it as to Nova."""

import contextlib
import os
import subprocess

import requests
from keystoneauth1 import loading
from keystoneauth1 import session as ks_session
from novaclient import client as nova_client

from tests.functional import fixtures
from tests.functional import identity
from tests.helpers.overrides import Overrides
from tools import children
from watcher_ha.simulator import scenario

# Four hosts, twelve servers, and migrations fast enough for tests.
SMALL = scenario.generate(hosts=4, servers=12, seed=3)
SMALL['bandwidth_mb_per_s'] = 8192


@contextlib.contextmanager
def simulator(tmp_path, spec, transport_url=None, config_files=()):
    """The simulator serving ``spec``, as a process of its own on a free
    port, stopped on leaving: its URL. With ``transport_url`` it sends
    Nova's notifications there, with the messaging options of
    ``config_files``."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / 'scenario.yaml'
    scenario.dump(spec, str(path))
    port = fixtures.free_port()
    command = [os.path.join(fixtures.BIN, 'watcher-ha-simulator'),
               '--scenario', str(path), '--port', str(port)]
    if transport_url:
        command += ['--transport-url', transport_url]
    for path in config_files:
        command += ['--config-file', str(path)]
    with open(tmp_path / 'simulator.out', 'w') as out:
        proc = children.popen(command, stdout=out,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)
    url = 'http://127.0.0.1:%d' % port
    try:
        fixtures.wait_answering(proc, url + '/simulator/state',
                                tmp_path / 'simulator.out', 30,
                                'watcher-ha-simulator')
        yield url
    finally:
        fixtures.stop(proc)


def evacuations(url):
    """Every evacuation the simulator at ``url`` made, as Nova's
    os-migrations lists them."""
    return requests.get(
        url + '/compute/v2.1/os-migrations?migration_type=evacuation',
        headers={'X-Auth-Token': 'any',
                 'OpenStack-API-Version': 'compute 2.96'},
        timeout=10).json()['migrations']


def nova(url, password='admin'):
    """A novaclient (microversion 2.96) with Keystone password auth
    against the simulator at ``url``."""
    auth = loading.get_plugin_loader('password').load_from_options(
        auth_url=url + '/identity/v3', username='admin', password=password,
        project_name='admin', user_domain_name='Default',
        project_domain_name='Default')
    return nova_client.Client('2.96', session=ks_session.Session(auth=auth))


@contextlib.contextmanager
def overridden(overrides):
    """The options ``overrides`` ((option, value, group)...) set in this
    process, in the block."""
    made = Overrides()
    for option, value, group in overrides:
        made.config(group=group, **{option: value})
    try:
        yield
    finally:
        made.clear()


def nova_of_this_process(url, poll_interval=0.1, migration_timeout=30):
    """[nova] of this process pointed at the simulator at ``url``
    (auth_type none), the applier's polling quick, in the block."""
    return overridden((
        ('auth_type', 'none', 'nova'),
        ('endpoint_override', url + '/compute/v2.1', 'nova'),
        ('poll_interval', poll_interval, 'watcher_applier'),
        ('migration_timeout', migration_timeout, 'watcher_applier')))



@contextlib.contextmanager
def nova_of_this_process_on(tmp_path, spec):
    """The simulator serving ``spec``, and [nova] of this process pointed
    at it (nova_of_this_process), in the block: an admin novaclient on it
    and its servers' ids by name."""
    with simulator(tmp_path, spec) as url, nova_of_this_process(url):
        client = nova(url)
        yield client, {s.name: s.id for s in client.servers.list()}


def scenario_host(name):
    """A host of a simulator scenario: 8 vCPUs, 16 GiB, 400 GB."""
    return {'name': name, 'vcpus': 8, 'memory_mb': 16384, 'disk_gb': 400}


def auth_sections(url):
    """[nova] and [placement]: Keystone password auth at the simulator at
    ``url``."""
    return identity.cloud_sections(url, 'nova', 'placement')


def nova_sections(url):
    """auth_sections(), and the applier's polling quick."""
    return dict(auth_sections(url),
                watcher_applier={'poll_interval': 0.2,
                                 'migration_timeout': 60})


BLOCK_STORAGE_HEADERS = {'X-Auth-Token': 'any',
                         'OpenStack-API-Version': 'volume 3.60'}


def block_storage_get(url, path, **params):
    """GET ``path`` of the simulator's Block Storage API: its JSON."""
    reply = requests.get(url + '/volume/v3' + path, params=params,
                         headers=BLOCK_STORAGE_HEADERS, timeout=30)
    reply.raise_for_status()
    return reply.json()


def list_volumes(url):
    """Every volume of the simulator at ``url``, page by page."""
    found, params = [], {'all_tenants': 1}
    while True:
        body = block_storage_get(url, '/volumes/detail', **params)
        found += body['volumes']
        if not body.get('volumes_links'):
            return found
        params['marker'] = body['volumes'][-1]['id']
