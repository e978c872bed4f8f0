"""host_maintenance on model snapshots."""

import dataclasses

import pytest

from tests.helpers.maintenance_cluster import actions
from tests.helpers.maintenance_cluster import cluster
from tests.helpers.maintenance_cluster import run
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import host_maintenance


NODES = {'n1': (8, 8192, 'enabled', 'up'), 'n2': (8, 8192, 'enabled', 'up'),
         'n3': (8, 8192, 'enabled', 'up')}


def test_disables_then_moves_running_live_and_stopped_cold():
    snapshot = cluster(NODES, [('a', 'n1', 2, 2048, 'active'),
                               ('b', 'n1', 2, 2048, 'stopped'),
                               ('c', 'n2', 2, 6144, 'active')])
    found = actions(run(snapshot, maintenance_node='n1'))
    assert found[0] == ('change_nova_service_state', {
        'resource_id': 'uuid-n1', 'resource_name': 'n1',
        'state': 'disabled', 'disabled_reason': 'watcher_maintaining'})
    migrations = {p['resource_name']: p for t, p in found[1:]}
    assert migrations['a']['migration_type'] == 'live'
    assert migrations['b']['migration_type'] == 'cold'
    # n2 has 2 GB free, n3 8 GB: the most free memory wins.
    assert {p['destination_node'] for p in migrations.values()} == {'n3'}
    assert all(p['source_node'] == 'n1' for p in migrations.values())


def test_prefers_the_backup_node_while_it_has_room():
    snapshot = cluster(NODES, [('a', 'n1', 4, 4096, 'active'),
                               ('b', 'n1', 4, 4096, 'active'),
                               ('c', 'n1', 4, 4096, 'active')])
    found = actions(run(snapshot, maintenance_node='n1', backup_node='n2'))
    destinations = [p['destination_node'] for t, p in found
                    if t == 'migrate']
    assert destinations == ['n2', 'n2', 'n3']


def test_never_targets_disabled_or_down_nodes():
    nodes = dict(NODES, n2=(64, 65536, 'disabled', 'up'),
                 n3=(64, 65536, 'enabled', 'down'),
                 n4=(8, 8192, 'enabled', 'up'))
    snapshot = cluster(nodes, [('a', 'n1', 2, 2048, 'active')])
    found = actions(run(snapshot, maintenance_node='n1'))
    assert found[-1][1]['destination_node'] == 'n4'


def test_fails_naming_what_fits_nowhere():
    nodes = {'n1': (8, 8192, 'enabled', 'up'),
             'n2': (8, 2048, 'enabled', 'up')}
    snapshot = cluster(nodes, [('small', 'n1', 1, 1024, 'active'),
                               ('big', 'n1', 4, 4096, 'active')])
    with pytest.raises(base.StrategyError, match='room for big'):
        run(snapshot, maintenance_node='n1')


def test_a_node_disabled_for_maintenance_already_is_only_drained():
    snapshot = _with_node(cluster(NODES, [('a', 'n1', 2, 2048, 'active')]),
                          'n1', status='disabled',
                          disabled_reason='watcher_maintaining')
    assert [t for t, _ in actions(run(snapshot, maintenance_node='n1'))] \
        == ['migrate']
    # Disabled for another reason: Watcher disables it again, with its
    # reason, so that the node shows why it is out.
    other = _with_node(snapshot, 'n1', disabled_reason='broken fan')
    assert [t for t, _ in actions(run(other, maintenance_node='n1'))] \
        == ['change_nova_service_state', 'migrate']


def test_live_or_cold_can_be_switched_off():
    snapshot = cluster(NODES, [('a', 'n1', 2, 2048, 'active'),
                               ('b', 'n1', 2, 2048, 'stopped')])
    cold_only = actions(run(snapshot, maintenance_node='n1',
                            disable_live_migration=True))
    assert {p['migration_type'] for t, p in cold_only if t == 'migrate'} \
        == {'cold'}
    live_only = actions(run(snapshot, maintenance_node='n1',
                            disable_cold_migration=True))
    assert [p['resource_name'] for t, p in live_only if t == 'migrate'] \
        == ['a']


def test_unknown_nodes_are_named():
    snapshot = cluster(NODES, [])
    with pytest.raises(base.StrategyError, match='compute node nope'):
        run(snapshot, maintenance_node='nope')
    with pytest.raises(base.StrategyError, match='backup node gone'):
        run(snapshot, maintenance_node='n1', backup_node='gone')


def test_capacity_counts_reserved_and_ratios():
    node = elements.ComputeNode(hostname='x', vcpus=10, vcpu_reserved=2,
                                vcpu_ratio=4.0, memory_mb=1000,
                                memory_mb_reserved=200, memory_ratio=1.5)
    assert node.capacity('vcpus') == 32
    assert node.capacity('memory_mb') == 1200


def test_what_placement_holds_beyond_the_servers_is_not_free():
    # n3 has the most free memory by its servers, but Placement counted
    # 7 GB more there at the last read (a resize's hold on its source).
    changes = cluster(NODES, [('a', 'n1', 2, 2048, 'active'),
                              ('c', 'n2', 2, 4096, 'active')]).changes()
    changes.put_node(elements.ComputeNode(
        hostname='n3', uuid='uuid-n3', vcpus=8, memory_mb=8192,
        disk_gb=1000, memory_mb_held=7168))
    snapshot = changes.state()
    assert snapshot.used('n3', 'memory_mb') == 7168
    assert snapshot.used('n2', 'memory_mb') == 4096
    found = actions(run(snapshot, maintenance_node='n1'))
    assert [p['destination_node'] for t, p in found
            if t == 'migrate'] == ['n2']


def test_a_paused_server_moves_live_and_unmovable_ones_are_named():
    paused = cluster(NODES, [('p', 'n1', 1, 1024, 'paused')])
    assert actions(run(paused, maintenance_node='n1'))[1][1][
        'migration_type'] == 'live'
    snapshot = cluster(NODES, [('a', 'n1', 1, 1024, 'active'),
                               ('s', 'n1', 1, 1024, 'suspended'),
                               ('e', 'n1', 1, 1024, 'error'),
                               ('p', 'n1', 1, 1024, 'paused')])
    with pytest.raises(base.StrategyError,
                       match=r'cannot move e \(error\), s \(suspended\) '
                             r'off n1'):
        run(snapshot, maintenance_node='n1')
    # Paused cannot go cold either.
    with pytest.raises(base.StrategyError, match=r'p \(paused\)'):
        run(snapshot, maintenance_node='n1', disable_live_migration=True)
    # Told to leave the servers that do not run, it leaves them.
    left = actions(run(snapshot, maintenance_node='n1',
                       disable_cold_migration=True))
    assert sorted(p['resource_name'] for t, p in left
                  if t == 'migrate') == ['a', 'p']


def test_a_pinned_server_stays_in_its_availability_zone():
    changes = state.ClusterState().changes()
    for name, zone, memory in (('n1', 'az1', 8192), ('n2', 'az1', 4096),
                               ('n3', 'az2', 8192)):
        changes.put_node(elements.ComputeNode(
            hostname=name, uuid='uuid-' + name, vcpus=8, memory_mb=memory,
            disk_gb=1000, availability_zone=zone))
    for name, pinned in (('free', None), ('pinned', 'az1')):
        changes.put_instance(elements.Instance(
            uuid='uuid-' + name, name=name, host='n1', vcpus=1,
            memory_mb=1024, disk_gb=10, pinned_availability_zone=pinned))
    found = {p['resource_name']: p['destination_node']
             for t, p in actions(run(changes.state(),
                                     maintenance_node='n1'))
             if t == 'migrate'}
    # n3 has the most room, but only the unpinned server may cross.
    assert found == {'free': 'n3', 'pinned': 'n2'}
    # Without n2, az1 has no room left for it.
    with pytest.raises(base.StrategyError, match='room for pinned'):
        run(_without(changes.state(), 'n2'), maintenance_node='n1')


def _without(snapshot, hostname):
    changes = snapshot.changes()
    changes.remove_node(hostname)
    return changes.state()


def _with_node(snapshot, hostname, **values):
    changes = snapshot.changes()
    changes.put_node(dataclasses.replace(snapshot.node(hostname), **values))
    return changes.state()


MIXED = [('a', 'n1', 1, 1024, 'active'), ('s', 'n1', 1, 1024, 'stopped'),
         ('p', 'n1', 1, 1024, 'paused'), ('e', 'n1', 1, 1024, 'error')]


def test_both_migrations_disabled_stops_the_active_servers_only():
    found = actions(run(cluster(NODES, MIXED), maintenance_node='n1',
                        disable_live_migration=True,
                        disable_cold_migration=True))
    assert found == [
        ('change_nova_service_state', {
            'resource_id': 'uuid-n1', 'resource_name': 'n1',
            'state': 'disabled', 'disabled_reason': 'watcher_maintaining'}),
        ('stop', {'resource_id': 'uuid-a'})]


@pytest.mark.parametrize('no_live, no_cold, servers, expected', [
    # Watcher 17's table: running -> live/cold/live/stop, the others
    # -> cold/cold/stay/stay.
    (False, False, [('a', 'active'), ('s', 'stopped')],
     {'a': 'live', 's': 'cold'}),
    (True, False, [('a', 'active'), ('s', 'stopped')],
     {'a': 'cold', 's': 'cold'}),
    (False, True, [('a', 'active'), ('s', 'stopped')], {'a': 'live'}),
    (True, True, [('a', 'active'), ('s', 'stopped')], {'a': 'stop'}),
])
def test_each_combination_of_the_switches(no_live, no_cold, servers,
                                          expected):
    snapshot = cluster(NODES, [(name, 'n1', 1, 1024, vm_state)
                               for name, vm_state in servers])
    found = run(snapshot, maintenance_node='n1',
                disable_live_migration=no_live,
                disable_cold_migration=no_cold).actions
    fates = {}
    for action in found:
        if action.action_type == 'migrate':
            fates[action.input_parameters['resource_name']] = \
                action.input_parameters['migration_type']
        elif action.action_type == 'stop':
            fates[action.resource_id[len('uuid-'):]] = 'stop'
    assert fates == expected


def test_a_disabled_backup_node_is_enabled_and_used():
    snapshot = _with_node(cluster(NODES, [('a', 'n1', 2, 2048, 'active')]),
                          'n2', status='disabled')
    found = actions(run(snapshot, maintenance_node='n1', backup_node='n2'))
    assert found[1] == ('change_nova_service_state', {
        'resource_id': 'uuid-n2', 'resource_name': 'n2',
        'state': 'enabled'})
    assert found[2][1]['destination_node'] == 'n2'
    # Without a backup node, a disabled node receives nothing.
    found = actions(run(snapshot, maintenance_node='n1'))
    assert found[-1][1]['destination_node'] == 'n3'


def test_a_backup_node_that_cannot_receive_is_refused():
    snapshot = cluster(NODES, [('a', 'n1', 2, 2048, 'active')])
    with pytest.raises(base.StrategyError, match='kept for failover'):
        run(snapshot, maintenance_node='n1', backup_node='n2',
            protected={'n2'})
    with pytest.raises(base.StrategyError, match='n2 is down'):
        run(_with_node(snapshot, 'n2', state='down'),
            maintenance_node='n1', backup_node='n2')
    with pytest.raises(base.StrategyError, match='maintenance node itself'):
        run(snapshot, maintenance_node='n1', backup_node='n1')


def test_a_protected_node_receives_nothing():
    snapshot = cluster(NODES, [('a', 'n1', 2, 2048, 'active')])
    found = actions(run(snapshot, maintenance_node='n1', protected={'n3'}))
    assert found[-1][1]['destination_node'] == 'n2'
    with pytest.raises(base.StrategyError, match='room for a'):
        run(snapshot, maintenance_node='n1', protected={'n2', 'n3'})


def test_the_budget_holds_servers_back_for_a_later_round():
    snapshot = cluster(NODES, [('a', 'n1', 1, 1024, 'active'),
                               ('b', 'n1', 1, 2048, 'active'),
                               ('c', 'n1', 1, 3072, 'active')])
    found = actions(run(snapshot, maintenance_node='n1', max_migrations=2))
    assert found[0][0] == 'change_nova_service_state'
    # The largest first.
    assert [p['resource_name'] for t, p in found[1:]] == ['c', 'b']
    per_host = actions(run(snapshot, maintenance_node='n1',
                           max_migrations_per_host=1))
    assert [p['resource_name'] for t, p in per_host[1:]] == ['c']


def test_hysteresis_drops_a_plan_that_moves_too_few():
    snapshot = cluster(NODES, [('a', 'n1', 1, 1024, 'active'),
                               ('b', 'n1', 1, 2048, 'active'),
                               ('c', 'n1', 1, 3072, 'active')])
    # One of three is 33 %.
    assert run(snapshot, maintenance_node='n1', max_migrations=1,
               min_improvement=50).actions == []
    assert len(run(snapshot, maintenance_node='n1', max_migrations=1,
                   min_improvement=30).actions) == 2
    # Without a budget every server is dealt with: 100 %.
    assert len(run(snapshot, maintenance_node='n1',
                   min_improvement=100).actions) == 4


def test_an_empty_node_is_only_disabled_once():
    snapshot = cluster(NODES, [])
    assert [t for t, _ in actions(run(snapshot, maintenance_node='n1',
                                      min_improvement=50))] == [
        'change_nova_service_state']
    done = _with_node(snapshot, 'n1', status='disabled',
                      disabled_reason='watcher_maintaining')
    assert run(done, maintenance_node='n1').actions == []


def test_a_one_node_cluster_cannot_be_drained():
    snapshot = cluster({'n1': NODES['n1']}, [('a', 'n1', 1, 1024,
                                               'active')])
    with pytest.raises(base.StrategyError, match='room for a'):
        run(snapshot, maintenance_node='n1')


def test_parameters_are_watchers_plus_the_budget():
    spec = host_maintenance.HostMaintenance.parameters_spec
    assert spec['required'] == ['maintenance_node']
    assert spec['properties']['disable_live_migration'] == {
        'description': 'Disable live migration in maintenance. If True, '
                       'active instances will be cold migrated if '
                       '`disable_cold_migration` is not set, otherwise '
                       'they will be stopped.',
        'type': 'boolean', 'default': False}
    assert {'max_migrations', 'min_improvement'} <= set(spec['properties'])
