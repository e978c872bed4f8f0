"""storage_capacity_balance end to end: the real daemons (separate
processes on RabbitMQ and MariaDB), the decision engine keeping the
storage model of the simulator's Block Storage API (and following
Cinder's notifications), the applier moving volumes through it.

Three backends: two of type ``fast`` (stor1 with a small full pool and
a roomy one, stor2 with a large empty pool), one of type ``slow`` whose
only pool is full. At the default threshold (80 %), stor1@fast#p1 (90
of 100 GiB used) gives up one volume, the smallest that alone takes it
below 80 %, to the fast pool with the most room; its attached volume
stays (available ones go first). stor3@slow#p1 (85 %) has no other slow
pool: as Watcher, its volume is retyped to ``fast``, and Cinder's
scheduler puts it on that same roomy pool. Once the plan is applied,
every pool is below the threshold in Cinder, the engine's model follows,
and the next audit has nothing to do. An audit whose storage scope
excludes the roomy pool and the slow one moves the volume to stor1's
spare pool instead, and leaves the slow pool as it is.
"""

import requests

from tests.functional import services
from tests.functional.fixtures import wait_for
from tests.functional.cloud import nova_sections
from tests.helpers.plans import start_and_wait
from tests.helpers.plans import audit
from tests.helpers.plans import finished_audit
from tests.helpers.plans import plan_of
from watcher_ha.simulator import scenario

HEADERS = {'X-Auth-Token': 'any', 'OpenStack-API-Version': 'volume 3.60'}
SMALL, SPARE, ROOMY, SLOW = ('stor1@fast#p1', 'stor1@fast#p2',
                             'stor2@fast#p1', 'stor3@slow#p1')
THRESHOLD = 0.8


NAMES = ('attached', 'fast-25', 'fast-20', 'fast-10', 'fast-5', 'slow-40',
         'slow-30', 'slow-15')
IDS = {name: '5c0e%04d-0000-4000-8000-000000000000' % index
       for index, name in enumerate(NAMES)}


def _volume(name, pool, size, kind, **values):
    return dict({'id': IDS[name], 'name': name, 'pool': pool, 'size': size,
                 'type': kind, 'project': 'p1'}, **values)


def spec():
    made = scenario.generate(hosts=2, servers=1, seed=3)
    server = made['servers'][0]['name']
    made['storage'] = {
        'default_volume_type': 'fast',
        'volume_migration_seconds_per_gb': 0.01,
        'volume_step_seconds': 0.1,
        'backends': [
            {'host': 'stor1', 'backend': 'fast', 'zone': 'az1', 'pools': [
                {'name': 'p1', 'total_capacity_gb': 100},
                {'name': 'p2', 'total_capacity_gb': 200}]},
            {'host': 'stor2', 'backend': 'fast', 'zone': 'az1', 'pools': [
                {'name': 'p1', 'total_capacity_gb': 1000}]},
            {'host': 'stor3', 'backend': 'slow', 'zone': 'az1', 'pools': [
                {'name': 'p1', 'total_capacity_gb': 100}]}],
        'volume_types': [
            {'name': 'fast', 'extra_specs': {'volume_backend_name': 'fast'}},
            {'name': 'slow', 'extra_specs': {'volume_backend_name': 'slow'}}],
        'volumes': [
            _volume('attached', SMALL, 30, 'fast', attached_to=server),
            _volume('fast-25', SMALL, 25, 'fast'),
            _volume('fast-20', SMALL, 20, 'fast'),
            _volume('fast-10', SMALL, 10, 'fast'),
            _volume('fast-5', SMALL, 5, 'fast'),
            _volume('slow-40', SLOW, 40, 'slow'),
            _volume('slow-30', SLOW, 30, 'slow'),
            _volume('slow-15', SLOW, 15, 'slow')],
    }
    return made


def sections(sim_url):
    found = nova_sections(sim_url)
    found['cinder'] = {'auth_type': 'none',
                       'endpoint_override': sim_url + '/volume/v3'}
    found['watcher_decision_engine'] = {'collectors': 'compute,storage'}
    found['watcher_applier']['volume_migration_timeout'] = 60
    return found


def pools(sim_url):
    """{pool: used fraction of its total}, as Cinder reports them."""
    found = requests.get(sim_url + '/volume/v3/scheduler-stats/get_pools',
                         params={'detail': 'true'}, headers=HEADERS,
                         timeout=10).json()['pools']
    return {p['name']: 1 - p['capabilities']['free_capacity_gb']
            / p['capabilities']['total_capacity_gb'] for p in found}


def volumes(sim_url):
    """{volume name: (pool, type)}, as Cinder shows them."""
    found = requests.get(sim_url + '/volume/v3/volumes/detail',
                         params={'all_tenants': 1}, headers=HEADERS,
                         timeout=10).json()['volumes']
    return {v['name']: (v['os-vol-host-attr:host'], v['volume_type'])
            for v in found}


def model_volumes(cluster):
    """{volume name: pool}, as the engine's storage model has them."""
    entries = requests.get(
        cluster.url + '/v1/data_model?data_model_type=storage',
        headers={'OpenStack-API-Version': 'infra-optim 1.3, watcher-ha 1.2'},
        timeout=10).json()['context']
    return {e['volume_name']: e['pool_name'] for e in entries
            if e.get('volume_uuid')}


def balance(cluster):
    finished = audit(cluster, 'workload_balancing',
                     'storage_capacity_balance', {})
    assert finished['state'] == 'SUCCEEDED', finished
    return finished


def test_storage_capacity_balance_brings_every_pool_below_80(tmp_path):
    with services.cloud_cluster(tmp_path, spec(), sections,
                                notifications=True) as (
            cluster, sim_url):
        before = pools(sim_url)
        assert before[SMALL] == 0.9 and before[SLOW] == 0.85

        finished = balance(cluster)
        plan, actions = plan_of(cluster, finished['uuid'])
        by_name = {a['input_parameters']['resource_name']:
                   a['input_parameters'] for a in actions}
        assert {a['action_type'] for a in actions} == {'volume_migrate'}
        assert by_name == {
            'fast-20': {'resource_id': IDS['fast-20'],
                        'resource_name': 'fast-20',
                        'migration_type': 'migrate',
                        'destination_node': ROOMY},
            'slow-15': {'resource_id': IDS['slow-15'],
                        'resource_name': 'slow-15',
                        'migration_type': 'retype',
                        'destination_type': 'fast'}}

        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        after = volumes(sim_url)
        assert after['fast-20'] == (ROOMY, 'fast')
        assert after['slow-15'] == (ROOMY, 'fast')
        assert after['attached'] == (SMALL, 'fast')
        used = pools(sim_url)
        assert all(fraction < THRESHOLD for fraction in used.values()), \
            used
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        assert sorted((m['kind'], m['status'])
                      for m in state['volume_migrations']) == [
            ('migrate', 'success'), ('retype', 'success')]

        # Cinder's notifications bring the model along (a migration
        # sends none of its own: the pools' capacity.pool do).
        wait_for(lambda: model_volumes(cluster).get('fast-20') == ROOMY
                 and model_volumes(cluster).get('slow-15') == ROOMY,
                 30, 'the storage model to show the moved volumes')
        again = balance(cluster)
        assert plan_of(cluster, again['uuid'])[1] == []


def test_a_storage_scope_keeps_the_plan_inside_it(tmp_path):
    """Scoped to stor1's pools (excluding the other backends' pools),
    the full pool's volume goes to stor1's spare pool, not to the roomier
    stor2; the full slow pool, out of scope, is left as it is."""
    with services.cloud_cluster(tmp_path, spec(), sections) as (
            cluster, sim_url):
        template = requests.post(cluster.url + '/v1/audit_templates',
                                 json={
            'name': 'stor1', 'goal': 'workload_balancing',
            'strategy': 'storage_capacity_balance',
            'scope': [{'storage': [{'exclude': [{'storage_pools': [
                {'name': ROOMY}, {'name': SLOW}]}]}]}]}, timeout=10)
        assert template.status_code == 201, template.text
        finished = finished_audit(cluster, {
            'audit_template_uuid': template.json()['uuid'],
            'audit_type': 'ONESHOT'})
        assert finished['state'] == 'SUCCEEDED', finished
        plan, actions = plan_of(cluster, finished['uuid'])
        assert [(a['input_parameters']['resource_name'],
                 a['input_parameters']['migration_type'],
                 a['input_parameters'].get('destination_node'))
                for a in actions] == [('fast-20', 'migrate', SPARE)]
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        assert volumes(sim_url)['fast-20'] == (SPARE, 'fast')
        used = pools(sim_url)
        assert used[SMALL] < THRESHOLD and used[SLOW] == 0.85
