"""An active/standby application on the simulator, made as an operator
makes one (an anti-affinity server group, two members marked active and
standby, the active's data volumes attached through Nova), and what the end
to end tests declare, trigger and watch: the application's EVENT audit,
its plans and actions through the Watcher API, the simulator's state
sampled ten times a second."""

import threading

import requests

from tests.functional.cloud import nova_sections
from tests.functional.cloud import scenario_host
from tests.functional.daemons import cli
from tests.helpers import failed_host
from tests.helpers import plans

SECRET = 'activation-secret'
HOSTS = ['compute-%d' % i for i in range(4)]
DATA_VOLUMES = ('0e000000-0000-4000-8000-000000000001',
                '0e000000-0000-4000-8000-000000000002')
POOL = 'stor1@fast#p1'


def spec(power_seconds=0.2, **more):
    """Four hosts (the active's, the standby's, two free), Ironic quick,
    and two data volumes."""
    return dict({
        'power_seconds': power_seconds, 'boot_seconds': 1,
        'hosts': [scenario_host(name) for name in HOSTS],
        'servers': [],
        'storage': {
            'backends': [{'host': 'stor1', 'backend': 'fast',
                          'pools': [{'name': 'p1',
                                     'total_capacity_gb': 500}]}],
            'volumes': [{'id': volume, 'name': 'data-%d' % index,
                         'size': 10, 'pool': POOL}
                        for index, volume in enumerate(DATA_VOLUMES)]}},
        **more)


def storage(volumes, capacity_gb=500):
    """A scenario's Cinder: one pool, and the data volumes ``volumes``
    (their ids), 10 GB each, in it."""
    return {'backends': [{'host': 'stor1', 'backend': 'fast',
                          'pools': [{'name': 'p1',
                                     'total_capacity_gb': capacity_gb}]}],
            'volumes': [{'id': volume, 'name': 'data-%s' % volume[:8],
                         'size': 10, 'pool': POOL} for volume in volumes]}


def sections(sim_url):
    """The daemons' [nova], [ironic] and [cinder] on the simulator at
    ``sim_url``, and the activation webhook's secret."""
    found = nova_sections(sim_url)
    found['ironic'] = dict(found['nova'], power_timeout=10)
    found['cinder'] = dict(found['nova'])
    found['app_failover'] = {'webhook_secret': SECRET,
                             'webhook_timeout': 20}
    return found


class Application:
    """The ids of an application made by ``make``."""

    def __init__(self, group, active, standby):
        self.group, self.active, self.standby = group, active, standby


def make(nova, role_key='role', volumes=DATA_VOLUMES):
    """An application of two members on compute-0 (active) and compute-1
    (standby), ``volumes`` attached to the active."""
    group = nova.server_groups.create(name='app', policy='anti-affinity')
    flavor = nova.flavors.find(name='m1.small')
    made = {}
    for role, host in (('active', HOSTS[0]), ('standby', HOSTS[1])):
        made[role] = nova.servers.create(
            'app-' + role, '155d900f-4e14-4e4c-a73d-069cbf4541e6', flavor,
            meta={role_key: role, 'app': 'db'}, nics='auto',
            availability_zone='nova:' + host,
            scheduler_hints={'group': group.id}).id
    for volume in volumes:
        nova.volumes.create_server_volume(made['active'], volume)
    return Application(group.id, made['active'], made['standby'])


def application(nova, name, hosts, volumes, **metadata):
    """An application ``name``: its first member active on hosts[0], the
    others standbys on the other hosts, ``volumes`` on the active, each
    member with ``metadata`` too: (its group's id, [its members' ids])."""
    group = nova.server_groups.create(name=name, policy='anti-affinity')
    flavor = nova.flavors.find(name='m1.small')
    made = []
    for index, host in enumerate(hosts):
        role = 'active' if index == 0 else 'standby'
        made.append(nova.servers.create(
            '%s-%d' % (name, index), 'image', flavor, nics='auto',
            meta=dict(metadata, role=role),
            availability_zone='nova:' + host,
            scheduler_hints={'group': group.id}).id)
    for volume in volumes:
        nova.volumes.create_server_volume(made[0], volume)
    return group.id, made


def declare(cluster, name, group, **parameters):
    """The EVENT audit declaring the application, made with the watcher
    CLI."""
    options = []
    for key, value in dict(server_group=group, **parameters).items():
        options += ['-p', '%s=%s' % (key, value)]
    return cli(cluster.url, 'audit', 'create', '-t', 'EVENT', '--name',
               name, '-g', 'application_availability', '-s',
               'active_standby', '--auto-trigger', *options)['UUID']


def trigger(cluster, audit):
    response = requests.post('%s/v1/webhooks/%s' % (cluster.url, audit),
                             json={'alarm': 'app down'}, timeout=10)
    assert response.status_code == 202, response.text


def state(sim_url):
    return requests.get(sim_url + '/simulator/state', timeout=10).json()


def host_event(sim_url, host, what):
    requests.post('%s/simulator/hosts/%s/%s' % (sim_url, host, what),
                  timeout=10).raise_for_status()


class Sampler(threading.Thread):
    """Reads the simulator's state ten times a second and keeps every
    moment one of ``volumes`` was writable by more than one guest
    (``shared``), and each value the metadata key of a server of
    ``marks`` ({server: key}) took (``marked``: {server: [values]})."""

    def __init__(self, sim_url, volumes, marks=None):
        super().__init__(daemon=True)
        self.sim_url, self.volumes = sim_url, volumes
        self.marks = dict(marks or {})
        self.samples, self.shared = 0, []
        self.marked = {server: [] for server in self.marks}
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.wait(0.1):
            found = state(self.sim_url)
            self.samples += 1
            for volume in self.volumes:
                writers = found['volumes'][volume]['writers']
                if len(writers) > 1:
                    self.shared.append((volume, writers))
            for server, key in self.marks.items():
                value = found['servers'].get(server, {}).get(
                    'metadata', {}).get(key)
                if value is not None and value not in self.marked[server]:
                    self.marked[server].append(value)

    def stop(self):
        self.stopping.set()
        self.join(10)


def api(cluster, path):
    """GET ``path`` of the Watcher API at its latest microversion: what
    the tests poll (a CLI call costs a second and a half of CPU)."""
    response = requests.get(cluster.url + path, headers=plans.LATEST,
                            timeout=10)
    response.raise_for_status()
    return response.json()


def audit_of(cluster, audit):
    return api(cluster, '/v1/audits/' + audit)


def plans_of(cluster, audit):
    return api(cluster, '/v1/action_plans?audit_uuid=' + audit)[
        'action_plans']


def actions_of(cluster, plan):
    return api(cluster, '/v1/actions/detail?action_plan_uuid=' + plan)[
        'actions']


def one_segment(cluster, hosts):
    """A failover segment of instance HA (recovery method auto) holding
    every one of ``hosts``, none reserved."""
    segment = failed_host.ha(cluster, 'POST', '/segments', {
        'segment': {'name': 'apps', 'recovery_method': 'auto',
                    'service_type': 'COMPUTE'}})['segment']
    for host in hosts:
        failed_host.ha(cluster, 'POST', '/segments/%s/hosts'
                       % segment['uuid'], {'host': {
                           'name': host, 'type': 'COMPUTE',
                           'control_attributes': '', 'reserved': False}})
