"""workload_preemption end to end: the real daemons (separate processes on
RabbitMQ and MariaDB) audit the simulator, reading Nova's servers with
their flavors' extra specs and Placement's allocations (a custom class
too); the plan is started and applied through Nova.

Two hosts of 8 vCPUs, 11 of the 16 allocated (31 % free), to bring to
50 % free: 3 vCPUs to free. Two servers of normal flavors and a
preemptible one younger than min_instance_age are never touched. In
delete mode, by age, the oldest preemptible server is deleted and the
next one shelved, as its flavor's lifecycle:preempt_policy says; in
shelve mode, preferring the largest CUSTOM_GPU allocation, the GPU
server and then the oldest are shelved. Deleted servers are gone,
shelved ones SHELVED_OFFLOADED with no allocation left, and Placement
shows the share asked for free. Asked for more than the candidates
hold, the plan preempts them all and says by how much it falls short.
"""

import pytest
import requests

from tests.functional import services
from tests.functional.cloud import nova_sections
from tests.helpers.plans import LATEST
from tests.helpers.plans import audit
from tests.helpers.plans import plan_of
from tests.helpers.plans import start_and_wait
from watcher_ha.simulator import scenario

HOUR = 3600
PREEMPTABLE = {'lifecycle:preemptable': 'true'}


def _host(name):
    return {'name': name, 'vcpus': 8, 'memory_mb': 16384, 'disk_gb': 400,
            'vcpu_ratio': 1.0, 'memory_ratio': 1.0,
            'inventory': {'CUSTOM_GPU': 2}}


SPEC = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'flavors': [
        {'id': '1', 'name': 'normal', 'vcpus': 2, 'ram': 2048, 'disk': 20},
        {'id': '2', 'name': 'spot', 'vcpus': 2, 'ram': 2048, 'disk': 20,
         'extra_specs': PREEMPTABLE},
        {'id': '3', 'name': 'spot-gpu', 'vcpus': 2, 'ram': 2048,
         'disk': 20, 'extra_specs': dict(PREEMPTABLE, **{
             'resources:CUSTOM_GPU': '1'})},
        {'id': '4', 'name': 'spot-keep', 'vcpus': 1, 'ram': 1024,
         'disk': 10, 'extra_specs': {'lifecycle:preemptable': 'True',
                                     'lifecycle:preempt_policy': 'shelve'}},
    ],
    'hosts': [_host('compute-a'), _host('compute-b')],
    'servers': [
        {'name': 'normal-a', 'flavor': 'normal', 'host': 'compute-a',
         'age': 10 * HOUR},
        {'name': 'spot-old', 'flavor': 'spot', 'host': 'compute-a',
         'age': 5 * HOUR},
        {'name': 'spot-young', 'flavor': 'spot', 'host': 'compute-a'},
        {'name': 'normal-b', 'flavor': 'normal', 'host': 'compute-b',
         'age': 10 * HOUR},
        {'name': 'spot-gpu', 'flavor': 'spot-gpu', 'host': 'compute-b',
         'age': 3 * HOUR},
        {'name': 'spot-keep', 'flavor': 'spot-keep', 'host': 'compute-b',
         'age': 4 * HOUR},
    ],
}
NEVER = ('normal-a', 'normal-b', 'spot-young')

CASES = {
    'delete': ({}, {'spot-old': 'delete', 'spot-keep': 'shelve'}, {
        'preempted_instances_count': 2, 'vcpu_freed': 3,
        'mem_mb_freed': 3072, 'disk_gb_freed': 30}),
    'shelve': ({'preemption_preference': [['resource:CUSTOM_GPU', 'dec'],
                                          ['age', 'dec']]},
               {'spot-gpu': 'shelve', 'spot-old': 'shelve'}, {
        'preempted_instances_count': 2, 'vcpu_freed': 4,
        'mem_mb_freed': 4096, 'disk_gb_freed': 40}),
}


def state(sim_url):
    return requests.get(sim_url + '/simulator/state', timeout=10).json()


def by_name(found):
    return {s['name']: dict(s, uuid=uuid)
            for uuid, s in found['servers'].items()}


def allocations(sim_url, uuid):
    return requests.get(
        '%s/placement/allocations/%s' % (sim_url, uuid), timeout=10,
        headers={'X-Auth-Token': 'any',
                 'OpenStack-API-Version': 'placement 1.6'}).json()[
        'allocations']


def indicators(cluster, plan):
    found = requests.get('%s/v1/action_plans/%s' % (cluster.url, plan),
                         headers=LATEST, timeout=10).json()
    return found, {i['name']: i['value']
                   for i in found['efficacy_indicators']}


@pytest.mark.parametrize('mode', sorted(CASES))
def test_preemption_frees_the_share_asked_for(tmp_path, mode, own_rabbit):
    preference, expected, expected_indicators = CASES[mode]
    with services.cloud_cluster(tmp_path, SPEC, nova_sections,
                                rabbit=own_rabbit) as (cluster, sim_url):
        before = by_name(state(sim_url))
        # More than the candidates hold: all of them, and a plan that
        # says by how much it falls short (not applied).
        short = audit(cluster, 'workload_optimization',
                      'workload_preemption',
                      dict(preference, cpu_free_percentage=90,
                           preemption_mode=mode))
        assert short['state'] == 'SUCCEEDED', short
        short_plan, short_actions = plan_of(cluster, short['uuid'])
        assert {a['input_parameters']['resource_name']
                for a in short_actions} == {'spot-old', 'spot-gpu',
                                            'spot-keep'}
        shown, _ = indicators(cluster, short_plan)
        assert shown['status_message'].startswith(
            'the thresholds cannot be met'), shown
        assert 'of vCPU still to free' in shown['status_message'], shown
        assert '1 (younger than min_instance_age)' in \
            shown['status_message'], shown

        finished = audit(cluster, 'workload_optimization',
                         'workload_preemption',
                         dict(preference, cpu_free_percentage=50,
                              preemption_mode=mode))
        assert finished['state'] == 'SUCCEEDED', finished
        plan, actions = plan_of(cluster, finished['uuid'])
        assert {a['input_parameters']['resource_name']: a['action_type']
                for a in actions} == expected
        shown, values = indicators(cluster, plan)
        assert values == expected_indicators
        assert shown['status_message'] is None, shown
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended

        after = state(sim_url)
        servers = by_name(after)
        for name, how in expected.items():
            if how == 'delete':
                assert name not in servers, name
                continue
            assert servers[name]['vm_state'] == 'shelved_offloaded', name
            assert servers[name]['host'] is None, name
            assert allocations(sim_url, servers[name]['uuid']) == {}, name
        for name in NEVER:
            assert servers[name]['vm_state'] == 'active', name
            assert servers[name]['host'] == before[name]['host'], name
        used = sum(h['used']['vcpus'] for h in after['hosts'].values())
        assert used <= 16 * 0.5, after['hosts']
