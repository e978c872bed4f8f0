"""saving_energy end to end: the real daemons (separate processes on
RabbitMQ and MariaDB) audit the simulator, read its Bare Metal API
(Ironic) and Placement, and the applier powers the nodes through Ironic.

Five hosts: compute-0000 runs a server; compute-0000, compute-0003 and
compute-0004 form a failover segment whose reserved host is compute-0004.
Asked to keep no free host on, the plan powers off compute-0001 and
compute-0002 only: compute-0003 is a segment member (never powered off),
compute-0004 is kept for failover and compute-0000 holds a server.
Asked for three free hosts,
the next plan powers the two on again; asked again, it has nothing to
do.
"""

import requests

from tests.functional import services
from tests.functional.cloud import nova_sections
from tests.helpers.plans import start_and_wait
from tests.helpers.failed_host import make_segment
from tests.functional.cloud import scenario_host
from tests.helpers.plans import audit
from tests.helpers.plans import plan_of
from watcher_ha.simulator import scenario

HOSTS = ['compute-%04d' % i for i in range(5)]
BUSY, SEGMENT_MEMBER, RESERVED = 'compute-0000', 'compute-0003', \
    'compute-0004'
SPEC = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'power_seconds': 1, 'boot_seconds': 1,
    'hosts': [scenario_host(name) for name in HOSTS],
    'servers': [{'name': 'vm-1', 'flavor': 'm1.small', 'host': BUSY}],
}


def sections(sim_url):
    found = nova_sections(sim_url)
    found['ironic'] = dict(found['nova'])
    found['watcher_applier']['change_node_power_state_timeout'] = 60
    return found


def segment_of(cluster):
    make_segment(cluster, (BUSY, SEGMENT_MEMBER, RESERVED),
                 reserved=(RESERVED,))


def ironic_power(sim_url):
    """{host name: Ironic's power state and target}."""
    nodes = requests.get(
        sim_url + '/baremetal/v1/nodes?fields=name,power_state,'
        'target_power_state', timeout=10, headers={
            'X-Auth-Token': 'any',
            'X-OpenStack-Ironic-API-Version': '1.46'}).json()['nodes']
    return {node['name']: (node['power_state'], node['target_power_state'])
            for node in nodes}


def powered(sim_url):
    """{host name: on/off}, as Ironic and the simulated machines agree."""
    machines = requests.get(sim_url + '/simulator/state',
                            timeout=10).json()['hosts']
    found = {}
    for name, (state, target) in ironic_power(sim_url).items():
        assert target is None, (name, state, target)
        assert (state == 'power on') == machines[name]['powered_on'], name
        found[name] = 'on' if state == 'power on' else 'off'
    return found


def power_plan(cluster, parameters):
    """(plan uuid, {host: state}) of a saving_energy audit's plan."""
    finished = audit(cluster, 'saving_energy', 'saving_energy', parameters)
    assert finished['state'] == 'SUCCEEDED', finished
    plan, actions = plan_of(cluster, finished['uuid'])
    assert {a['action_type'] for a in actions} <= {
        'change_node_power_state'}, actions
    return plan, {a['input_parameters']['resource_name']:
                  a['input_parameters']['state'] for a in actions}


def applied(cluster, plan):
    ended = start_and_wait(cluster, plan)
    assert ended['state'] == 'SUCCEEDED', ended


def test_saving_energy_powers_hosts_off_and_on(tmp_path):
    with services.cloud_cluster(tmp_path, SPEC, sections) as (
            cluster, sim_url):
        segment_of(cluster)
        assert set(powered(sim_url).values()) == {'on'}

        plan, decided = power_plan(cluster, {'min_free_hosts_num': 0})
        assert decided == {'compute-0001': 'off', 'compute-0002': 'off'}
        applied(cluster, plan)
        assert powered(sim_url) == {
            BUSY: 'on', 'compute-0001': 'off', 'compute-0002': 'off',
            SEGMENT_MEMBER: 'on', RESERVED: 'on'}

        plan, decided = power_plan(cluster, {'min_free_hosts_num': 3})
        assert decided == {'compute-0001': 'on', 'compute-0002': 'on'}
        applied(cluster, plan)
        assert set(powered(sim_url).values()) == {'on'}

        # Every host already where it should be: nothing to do.
        _, decided = power_plan(cluster, {'min_free_hosts_num': 3})
        assert decided == {}
