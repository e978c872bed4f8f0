"""host_recovery on model snapshots and a segment in the database."""

import dataclasses
import datetime

import pytest

from tests.helpers.maintenance_cluster import actions
from tests.helpers.maintenance_cluster import cluster
from tests.helpers.segments import reserved_host_segment
from watcher_ha.common import context
from watcher_ha.common.instance_ha import failures
from watcher_ha.db import models
from watcher_ha.db import vmoves
from watcher_ha.decision_engine.goal import cluster_maintaining
from watcher_ha.decision_engine.model import state
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import host_recovery

NODES = {'failed': (16, 32768, 'enabled', 'down'),
         'busy': (16, 32768, 'enabled', 'up'),
         'spare-1': (8, 16384, 'disabled', 'up'),
         'spare-2': (16, 32768, 'disabled', 'up')}


@pytest.fixture
def segment(db):
    return reserved_host_segment(['failed', 'busy'], ['spare-1', 'spare-2'])


def with_metadata(snapshot, metadata):
    """``snapshot`` with the servers' metadata set: {name: {key: value}}."""
    changes = state.ClusterState().changes()
    for node in snapshot.nodes.values():
        changes.put_node(node)
    for instance in snapshot.instances.values():
        changes.put_instance(dataclasses.replace(
            instance, metadata=tuple(sorted(
                metadata.get(instance.name, {}).items()))))
    return changes.state()


def run(snapshot, segment, **parameters):
    strategy = host_recovery.HostRecovery(
        cluster_maintaining.ClusterMaintaining)
    parameters = dict({'notification_uuid': 'n-1',
                       'segment_uuid': segment['uuid'],
                       'failed_host': 'failed',
                       'recovery_method': 'reserved_host',
                       'evacuate_all_instances': False}, **parameters)
    return actions(strategy.execute({}, parameters,
                                    models={'compute': snapshot}))


SERVERS = [('a', 'failed', 2, 4096, 'active'),
           ('b', 'failed', 4, 8192, 'stopped'),
           ('c', 'failed', 1, 2048, 'paused'),
           ('d', 'failed', 1, 1024, 'active'),
           ('e', 'busy', 2, 4096, 'active')]
HA = {'a': {'HA_Enabled': 'True', 'HA_Priority': '2'},
      'b': {'HA_Enabled': 'true', 'HA_Priority': '1'},
      'c': {'HA_Enabled': 'True'},
      'd': {'HA_Enabled': 'True'},
      'e': {'HA_Enabled': 'True'}}


def test_fence_claim_evacuate_in_priority_order_then_settle(segment):
    found = run(with_metadata(cluster(NODES, SERVERS), HA), segment)
    kinds = [kind for kind, _ in found]
    assert kinds == ['force_host_down', 'claim_reserved_hosts', 'evacuate',
                     'evacuate', 'evacuate', 'evacuate', 'settle_recovery']
    assert found[0][1] == {'resource_name': 'failed'}
    claim = found[1][1]
    # A paused server is evacuated too (reset first, as Masakari does);
    # the busy host is no candidate; the reserved hosts offer what they
    # hold.
    assert set(claim['servers']) == {'uuid-a', 'uuid-b', 'uuid-c',
                                     'uuid-d'}
    assert claim['servers']['uuid-b'] == {'vcpus': 4, 'memory_mb': 8192,
                                          'disk_gb': 10}
    assert set(claim['capacity']) == {'spare-1', 'spare-2'}
    assert claim['capacity']['spare-1']['vcpus'] > 0
    # Where the claim reads them again in Placement: the nodes' resource
    # providers.
    assert claim['providers'] == {'failed': 'uuid-failed',
                                  'spare-1': 'uuid-spare-1',
                                  'spare-2': 'uuid-spare-2'}
    order = [p['resource_name'] for kind, p in found if kind == 'evacuate']
    assert order == ['b', 'a', 'c', 'd']
    assert all(p['destination_from_claim'] and p['source_node'] == 'failed'
               and p['notification_uuid'] == 'n-1'
               for kind, p in found if kind == 'evacuate')
    assert found[-1] == ('settle_recovery', {
        'notification_uuid': 'n-1', 'segment_uuid': segment['uuid'],
        'source_node': 'failed', 'evacuate_all_instances': False,
        'left_alone': {}, 'not_evacuated': {}})


def test_only_ha_enabled_servers_unless_all_are_asked(segment):
    snapshot = with_metadata(cluster(NODES, SERVERS),
                             {'a': {'HA_Enabled': 'True'}})
    moved = [p['resource_name'] for kind, p in run(snapshot, segment)
             if kind == 'evacuate']
    assert moved == ['a']
    moved = [p['resource_name'] for kind, p in run(
        snapshot, segment, evacuate_all_instances=True)
        if kind == 'evacuate']
    assert sorted(moved) == ['a', 'b', 'c', 'd']


@pytest.mark.parametrize('vm_state', ['paused', 'suspended', 'resized',
                                      'rescued', 'error', 'stopped'])
def test_a_server_in_any_state_nova_can_rebuild_is_evacuated(segment,
                                                               vm_state):
    snapshot = with_metadata(cluster(NODES, [
        ('x', 'failed', 1, 1024, vm_state)]), {'x': {'HA_Enabled': 'True'}})
    found = run(snapshot, segment)
    assert [p['resource_name'] for kind, p in found
            if kind == 'evacuate'] == ['x']
    assert found[-1][1]['not_evacuated'] == {}


def test_a_server_still_building_is_left_saying_why(segment):
    snapshot = with_metadata(cluster(NODES, [
        ('x', 'failed', 1, 1024, 'building'),
        ('y', 'failed', 1, 1024, 'active')]),
        {'x': {'HA_Enabled': 'True'}, 'y': {'HA_Enabled': 'True'}})
    found = run(snapshot, segment)
    assert [p['resource_name'] for kind, p in found
            if kind == 'evacuate'] == ['y']
    assert set(found[1][1]['servers']) == {'uuid-y'}
    assert found[-1][1]['not_evacuated'] == {
        'uuid-x': 'server uuid-x is building: it was still being built '
                  'when its host failed (Nova cannot rebuild it elsewhere '
                  'before its build ended): delete it and create it again'}


def test_auto_leaves_the_destination_to_nova(segment):
    found = run(with_metadata(cluster(NODES, SERVERS), HA), segment,
                recovery_method='auto')
    assert [k for k, _ in found] == ['force_host_down', 'evacuate',
                                     'evacuate', 'evacuate', 'evacuate',
                                     'settle_recovery']
    assert all(p['destination_node'] is None
               and not p['destination_from_claim']
               for k, p in found if k == 'evacuate')


def test_power_fencing_comes_before_everything_else(segment):
    found = run(with_metadata(cluster(NODES, SERVERS), HA), segment,
                recovery_method='auto', power_fencing=True)
    assert [k for k, _ in found][:3] == ['power_off_host',
                                         'force_host_down', 'evacuate']
    assert found[0][1] == {'resource_name': 'failed'}


def test_nothing_to_move_still_fences_and_settles(segment):
    found = run(cluster(NODES, SERVERS), segment)
    assert [k for k, _ in found] == ['force_host_down', 'settle_recovery']


def test_an_unknown_host_is_named(segment):
    with pytest.raises(base.StrategyError, match='ghost'):
        run(cluster(NODES, SERVERS), segment, failed_host='ghost')


def test_a_later_attempt_offers_the_hosts_it_claimed(segment):
    # The first attempt claimed spare-1 (no longer reserved); the next
    # one must be able to fill it before claiming another.
    from watcher_ha.db import reserved_hosts
    ctx = context.admin_context()
    reserved_hosts.hold(ctx, segment['uuid'], 'n-1',
                         lambda held, free: ['spare-1'])
    found = run(with_metadata(cluster(NODES, SERVERS), HA), segment)
    assert set(found[1][1]['capacity']) == {'spare-1', 'spare-2'}
    # Another recovery's claim is not offered.
    found = run(with_metadata(cluster(NODES, SERVERS), HA), segment,
                notification_uuid='n-2')
    assert set(found[1][1]['capacity']) == {'spare-2'}


def test_a_server_evacuated_too_often_lately_is_left(segment):
    snapshot = with_metadata(cluster(NODES, SERVERS), HA)
    uuid_of = {i.name: i.uuid for i in snapshot.instances.values()}
    ctx = context.admin_context()
    now = models.utcnow()
    # 'b' came back three times in the hour (other recoveries), 'a'
    # three times too, but long ago.
    for n, (name, age) in enumerate([('b', 60), ('b', 600), ('b', 1200),
                                     ('a', 5000), ('a', 6000),
                                     ('a', 7000)]):
        vmoves.record(ctx, 'earlier-%d' % n, uuid_of[name],
                      status=vmoves.SUCCEEDED, source_host='x',
                      dest_host='y',
                      end_time=now - datetime.timedelta(seconds=age))
    found = run(snapshot, segment, max_evacuations=3,
                max_evacuations_window=3600)
    moved = [p['resource_name'] for kind, p in found if kind == 'evacuate']
    assert moved == ['a', 'c', 'd']
    left = found[-1][1]['left_alone']
    assert list(left) == [uuid_of['b']]
    assert 'evacuated 3 time(s) in the last 3600 s' in left[uuid_of['b']]
    # No limit: everyone goes.
    found = run(snapshot, segment, max_evacuations=0)
    assert [p['resource_name'] for kind, p in found
            if kind == 'evacuate'] == ['b', 'a', 'c', 'd']


@pytest.mark.parametrize('vm_state, power_state, reset, comes_back', [
    ('active', 1, False, 'active'),
    ('stopped', 4, False, 'stopped'),
    # Nova starts a server evacuated from error: Masakari stops it and
    # resets it to error again.
    ('error', 1, False, 'error'),
    ('error', 4, False, 'error'),
    # Reset to error first; back stopped, but a resize whose guest ran.
    ('paused', 3, True, 'stopped'),
    ('suspended', 7, True, 'stopped'),
    ('resized', 1, True, 'active'),
    ('resized', 4, True, 'stopped'),
    ('rescued', 1, True, 'stopped'),
    ('shelved', 4, True, 'stopped'),
])
def test_each_state_comes_back_as_masakari_leaves_it(vm_state, power_state,
                                                     reset, comes_back):
    assert failures.not_evacuated('x', vm_state) is None
    assert failures.reset_before_evacuation(vm_state) is reset
    assert failures.comes_back_as(vm_state, power_state) == comes_back


@pytest.mark.parametrize('vm_state', ['building', 'soft-delete'])
def test_a_server_building_or_deleted_is_not_evacuated(vm_state):
    assert failures.not_evacuated('x', vm_state).startswith(
        'server x is %s: ' % vm_state)
