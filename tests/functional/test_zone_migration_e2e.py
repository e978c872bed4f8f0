"""zone_migration end to end: the real daemons (separate processes on
RabbitMQ and MariaDB), the decision engine keeping the compute and the
storage data models of the simulator (its Compute, Placement and Block
Storage APIs), audit the draining of one compute node and one Cinder
pool; the plan is applied and the simulator shows every server and
volume moved.

compute-0000 is drained: two active servers (one with a volume attached)
and a stopped one; compute-0001 is a failover segment's reserved host,
so every server must go to compute-0002, though it has the least room.
Pool stor1@fast#p1 is drained: its ``fast`` volumes are migrated to
stor2@fast#p1, its ``gold`` one is retyped to ``slow`` (Cinder moves it
to stor3, the backend of that type). With ``with_attached_volume``, the
server of the attached volume moves right after it.
"""

import requests

from tests.functional import services
from tests.functional.fixtures import wait_for
from tests.functional.cloud import nova_sections
from tests.helpers.plans import start_and_wait
from tests.helpers.failed_host import make_segment
from tests.functional.cloud import list_volumes
from tests.functional.cloud import scenario_host
from tests.helpers.plans import audit
from tests.helpers.plans import check_applied
from tests.helpers.plans import plan_of
from watcher_ha.simulator import scenario

SOURCE, RESERVED, TARGET = 'compute-0000', 'compute-0001', 'compute-0002'
FAST1, FAST2 = 'stor1@fast#p1', 'stor2@fast#p1'
SLOW = 'stor3@slow#p1'


def _backend(host, backend):
    return {'host': host, 'backend': backend, 'zone': 'nova',
            'pools': [{'name': 'p1', 'total_capacity_gb': 1000}]}


SPEC = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'bandwidth_mb_per_s': 8192,
    'hosts': [scenario_host(SOURCE),
              dict(scenario_host(RESERVED), memory_mb=65536),
              scenario_host(TARGET)],
    'servers': [
        {'name': 'web', 'flavor': 'm1.small', 'host': SOURCE},
        {'name': 'db', 'flavor': 'm1.small', 'host': SOURCE},
        {'name': 'off', 'flavor': 'm1.small', 'host': SOURCE,
         'state': 'stopped'},
        {'name': 'elsewhere', 'flavor': 'm1.small', 'host': TARGET}],
    'storage': {
        'default_volume_type': 'fast',
        'volume_migration_seconds_per_gb': 0.01,
        'volume_step_seconds': 0.1,
        'backends': [_backend('stor1', 'fast'), _backend('stor2', 'fast'),
                     _backend('stor3', 'slow')],
        'volume_types': [
            {'name': 'fast', 'extra_specs': {'volume_backend_name': 'fast'}},
            {'name': 'gold', 'extra_specs': {'volume_backend_name': 'fast'}},
            {'name': 'slow', 'extra_specs': {'volume_backend_name': 'slow'}}],
        'volumes': [
            {'name': 'data-1', 'size': 10, 'pool': FAST1, 'type': 'fast'},
            {'name': 'data-2', 'size': 20, 'pool': FAST1, 'type': 'fast'},
            {'name': 'db-disk', 'size': 5, 'pool': FAST1, 'type': 'fast',
             'attached_to': 'db'},
            {'name': 'archive', 'size': 5, 'pool': FAST1, 'type': 'gold'},
            {'name': 'stays', 'size': 5, 'pool': FAST2, 'type': 'fast'}]},
}

PARAMETERS = {
    'compute_nodes': [{'src_node': SOURCE}],
    'storage_pools': [
        {'src_pool': FAST1, 'dst_pool': FAST2},
        {'src_pool': FAST1, 'src_type': 'gold', 'dst_type': 'slow'}],
    'parallel_total': 10, 'parallel_per_node': 3, 'parallel_per_pool': 4,
    'with_attached_volume': True,
    'priority': {'storage': 'size'},
}


def sections(sim_url):
    found = nova_sections(sim_url)
    found['cinder'] = dict(found['nova'])
    found['watcher_decision_engine'] = {'collectors': 'compute,storage'}
    found['watcher_applier']['volume_migration_timeout'] = 60
    return found


def reserve(cluster):
    """compute-0001: the reserved host of a failover segment."""
    make_segment(cluster, (SOURCE, RESERVED, TARGET), reserved=(RESERVED,))


def volumes(sim_url):
    """{name: (pool, type, status)} as the Block Storage API shows."""
    return {v['name']: (v['os-vol-host-attr:host'], v['volume_type'],
                        v['status']) for v in list_volumes(sim_url)}


def test_zone_migration_drains_a_node_and_a_pool(tmp_path):
    with services.cloud_cluster(tmp_path, SPEC, sections) as (
            cluster, sim_url):
        reserve(cluster)
        finished = audit(cluster, 'hardware_maintenance',
                         'zone_migration', PARAMETERS)
        assert finished['state'] == 'SUCCEEDED', finished
        plan, actions = plan_of(cluster, finished['uuid'])
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        name_of = {uuid: s['name'] for uuid, s in
                   state['servers'].items()}
        by_uuid = {v['id']: v['name'] for v in list_volumes(sim_url)}
        planned = []
        for action in actions:
            p = action['input_parameters']
            if action['action_type'] == 'migrate':
                planned.append((p['migration_type'],
                                name_of[p['resource_id']],
                                p['destination_node']))
            else:
                assert action['action_type'] == 'volume_migrate'
                planned.append((p['migration_type'],
                                by_uuid[p['resource_id']],
                                p.get('destination_node')
                                or p.get('destination_type')))
        volume_moves = [m for m in planned if m[0] in ('migrate',
                                                       'retype')]
        # The largest volumes first (the two of 5 GiB tie: Cinder's
        # order); db right after its volume.
        assert volume_moves[:2] == [('migrate', 'data-2', FAST2),
                                    ('migrate', 'data-1', FAST2)], planned
        assert sorted(volume_moves[2:]) == [
            ('migrate', 'db-disk', FAST2),
            ('retype', 'archive', 'slow')], planned
        db_disk = planned.index(('migrate', 'db-disk', FAST2))
        assert planned[db_disk + 1] == ('live', 'db', TARGET), planned
        assert sorted(m for m in planned if m[0] in ('live', 'cold')) \
            == [('cold', 'off', TARGET), ('live', 'db', TARGET),
                ('live', 'web', TARGET)], planned
        shown = requests.get(cluster.url + '/v1/action_plans/' + plan,
                             timeout=10).json()
        assert {i['name']: i['value']
                for i in shown['efficacy_indicators']} == {
            'live_migrate_instance_count': 2,
            'planned_live_migrate_instance_count': 2,
            'cold_migrate_instance_count': 1,
            'planned_cold_migrate_instance_count': 1,
            'volume_migrate_count': 4,
            'planned_volume_migrate_count': 4,
            'volume_update_count': 4,
            'planned_volume_update_count': 4}, shown

        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        after = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        check_applied(plan_of(cluster, finished['uuid'])[1], after)
        hosts = {s['name']: s['host'] for s in after['servers'].values()}
        assert hosts == {'web': TARGET, 'db': TARGET, 'off': TARGET,
                         'elsewhere': TARGET}
        wait_for(lambda: all(
            status in ('available', 'in-use')
            for _, _, status in volumes(sim_url).values()), 60,
            'the volumes at rest')
        assert volumes(sim_url) == {
            'data-1': (FAST2, 'fast', 'available'),
            'data-2': (FAST2, 'fast', 'available'),
            'db-disk': (FAST2, 'fast', 'in-use'),
            'archive': (SLOW, 'slow', 'available'),
            'stays': (FAST2, 'fast', 'available')}
