"""zone_migration on hand-made compute and storage states: which servers
and volumes move and how (live, cold, migrate, retype), in the order of
the priority parameter, within the parallel_* limits as Watcher counts
them, never to a host kept for failover; and, on random inputs, the
same plan as Watcher's algorithm (followed step by step below)."""

import datetime
import random

import pytest

from tests.helpers.storage_cluster import build
from tests.helpers.storage_cluster import node
from tests.helpers.storage_cluster import pool
from tests.helpers.storage_cluster import volume
from watcher_ha.common import exception
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.common import plugins
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import zone_migration as zm

POOL1, POOL2, POOL3 = 'st1@lvm#p1', 'st2@lvm#p1', 'st3@lvm#p1'


def cluster(nodes, servers):
    """nodes: {name: memory_mb} (8 vcpus each; or (memory, status,
    state)); servers: [(name, host, vm_state, project, vcpus,
    memory_mb)]."""
    changes = state.ClusterState().changes()
    for name, spec in nodes.items():
        memory, status, up = (spec if isinstance(spec, tuple)
                              else (spec, 'enabled', 'up'))
        changes.put_node(elements.ComputeNode(
            hostname=name, uuid='uuid-' + name, vcpus=64, memory_mb=memory,
            disk_gb=1000, status=status, state=up))
    for name, host, vm_state, project, vcpus, memory in servers:
        changes.put_instance(elements.Instance(
            uuid='uuid-' + name, name=name, host=host, state=vm_state,
            project_id=project, vcpus=vcpus, memory_mb=memory, disk_gb=10))
    return changes.state()


def server(name, host='n1', vm_state='active', project='p1', vcpus=1,
           memory=512):
    return (name, host, vm_state, project, vcpus, memory)


def storage(volumes=()):
    return build([node('st1@lvm'), node('st2@lvm'), node('st3@lvm')],
                 [pool(POOL1, 1000, 500), pool(POOL2, 1000, 900),
                  pool(POOL3, 1000, 900)], volumes)


NODES = {'n1': 8192, 'n2': 8192, 'n3': 16384}


def run(compute, store=None, protected=(), **given):
    goal = plugins.load_classes(plugins.GOALS)['hardware_maintenance']
    strategy = plugins.load_classes(plugins.STRATEGIES)['zone_migration'](
        goal)
    strategy.protected_hosts = frozenset(protected)
    checked = parameters_mod.check(strategy.parameters_spec, given)
    return strategy.execute({}, checked, models={
        'compute': compute, 'storage': store if store is not None
        else storage()})


def plan(solution):
    """(kind, name, where) per action: where is the destination node,
    pool or type."""
    found = []
    for action in solution.actions:
        p = action.input_parameters
        if action.action_type == 'migrate':
            found.append((p['migration_type'], p['resource_name'],
                          p['destination_node']))
        else:
            found.append((p['migration_type'], p['resource_name'],
                          p.get('destination_node')
                          or p.get('destination_type')))
    return found


def test_running_servers_move_live_stopped_cold_others_stay():
    compute = cluster(NODES, [server('a'), server('b', vm_state='stopped'),
                              server('c', vm_state='paused'),
                              server('d', vm_state='suspended'),
                              server('e', host='n2')])
    solution = run(compute, compute_nodes=[{'src_node': 'n1',
                                            'dst_node': 'n2'}],
                   parallel_per_node=10)
    assert plan(solution) == [('live', 'a', 'n2'), ('cold', 'b', 'n2'),
                              ('live', 'c', 'n2')]
    assert solution.actions[0].input_parameters == {
        'migration_type': 'live', 'source_node': 'n1',
        'destination_node': 'n2', 'resource_name': 'a',
        'resource_id': 'uuid-a'}
    assert solution.indicator_values == {
        'live_migrate_instance_count': 2,
        'planned_live_migrate_instance_count': 2,
        'cold_migrate_instance_count': 1,
        'planned_cold_migrate_instance_count': 1,
        'volume_migrate_count': 0, 'planned_volume_migrate_count': 0,
        'volume_update_count': 0, 'planned_volume_update_count': 0}


def test_without_dst_node_the_most_free_memory_wins_never_a_source():
    compute = cluster({'n1': 8192, 'n2': 8192, 'n3': 16384,
                       'n4': 65536}, [server('a'), server('b', host='n4')])
    # n4 has the most room, but it is emptied too.
    found = plan(run(compute, compute_nodes=[{'src_node': 'n1'},
                                             {'src_node': 'n4'}]))
    assert found == [('live', 'a', 'n3'), ('live', 'b', 'n3')]


def test_protected_hosts_never_receive_servers():
    compute = cluster(NODES, [server('a')])
    assert plan(run(compute, protected={'n3'},
                    compute_nodes=[{'src_node': 'n1'}])) == [
        ('live', 'a', 'n2')]
    with pytest.raises(base.StrategyError, match='n3 cannot take server a '
                       'from n1: it is kept for failover'):
        run(compute, protected={'n3'},
            compute_nodes=[{'src_node': 'n1', 'dst_node': 'n3'}])
    with pytest.raises(base.StrategyError, match='no enabled, up compute '
                       'node .* has room for a'):
        run(compute, protected={'n2', 'n3'},
            compute_nodes=[{'src_node': 'n1'}])


def test_room_is_counted_across_the_moves():
    compute = cluster({'n1': 8192, 'n2': 4096, 'n3': 3072},
                      [server('a', memory=3000), server('b', memory=3000)])
    assert plan(run(compute, compute_nodes=[{'src_node': 'n1'}])) == [
        ('live', 'a', 'n2'), ('live', 'b', 'n3')]
    with pytest.raises(base.StrategyError, match='dst_node n3 cannot take '
                       'server b from n1: it has no room left'):
        run(compute, compute_nodes=[{'src_node': 'n1', 'dst_node': 'n3'}])


@pytest.mark.parametrize('dst,why', [
    ('n9', 'is not in the compute data model'),
    ('n2', 'is disabled in Nova'), ('n3', 'is down')])
def test_a_dst_node_that_cannot_receive_is_refused(dst, why):
    compute = cluster({'n1': 8192, 'n2': (8192, 'disabled', 'up'),
                       'n3': (8192, 'enabled', 'down')}, [server('a')])
    with pytest.raises(base.StrategyError, match=why):
        run(compute, compute_nodes=[{'src_node': 'n1', 'dst_node': dst}])


def test_unknown_sources_are_named():
    compute = cluster(NODES, [])
    with pytest.raises(base.StrategyError, match=r'compute node nX '
                       r'\(compute_nodes\[1\].src_node\) is not in'):
        run(compute, compute_nodes=[{'src_node': 'n1'}, {'src_node': 'nX'}])
    with pytest.raises(base.StrategyError, match=r'storage pool a@b#c '
                       r'\(storage_pools\[0\].src_pool\)'):
        run(compute, storage_pools=[{'src_pool': 'a@b#c', 'dst_pool': POOL2}])


def test_volumes_migrate_or_retype_as_their_entry_says():
    store = storage([
        volume('v1', POOL1, 10, type_name='gold'),
        volume('v2', POOL1, 10, type_name='silver'),
        volume('v3', POOL1, 10, type_name='bronze'),
        volume('v4', POOL2, 10, type_name='gold'),
        volume('v5', POOL2, 10, type_name='silver'),
        volume('v6', POOL3, 10, type_name='gold')])
    found = plan(run(cluster(NODES, []), store, parallel_per_pool=10,
                     parallel_total=20, storage_pools=[
        # POOL1: gold volumes are retyped, any other migrates.
        {'src_pool': POOL1, 'dst_pool': POOL3},
        {'src_pool': POOL1, 'src_type': 'gold', 'dst_type': 'platinum'},
        # POOL2: only the silver ones; already of dst_type and no
        # dst_pool: left.
        {'src_pool': POOL2, 'src_type': 'silver', 'dst_type': 'silver'}]))
    assert sorted(found) == [('migrate', 'name-v2', POOL3),
                             ('migrate', 'name-v3', POOL3),
                             ('retype', 'name-v1', 'platinum')]


def test_volumes_are_read_from_the_storage_model_newest_first():
    store = storage([volume('v%d' % n, POOL1, 10, created_at=created)
                     for n, created in enumerate([
                         '2026-01-02T00:00:00', '2026-01-03T00:00:00+00:00',
                         '2026-01-01T00:00:00Z'])])
    solution = run(cluster(NODES, []), store, storage_pools=[
        {'src_pool': POOL1, 'dst_pool': POOL2}], parallel_per_pool=5)
    assert [name for _, name, _ in plan(solution)] == [
        'name-v1', 'name-v0', 'name-v2']
    assert solution.actions[0].input_parameters == {
        'migration_type': 'migrate', 'destination_node': POOL2,
        'resource_name': 'name-v1', 'resource_id': 'v1'}
    assert solution.actions[0].action_type == 'volume_migrate'
    assert solution.indicator_values['volume_migrate_count'] == 3
    assert solution.indicator_values['planned_volume_update_count'] == 3


def test_storage_pools_need_the_storage_model():
    goal = plugins.load_classes(plugins.GOALS)['hardware_maintenance']
    strategy = zm.ZoneMigration(goal)
    with pytest.raises(base.StrategyError, match='collectors'):
        strategy.execute({}, {'storage_pools': [
            {'src_pool': POOL1, 'dst_pool': POOL2}]},
            models={'compute': cluster(NODES, [])})


def test_priorities_order_servers_first_key_strongest():
    compute = cluster(NODES, [
        server('a', project='p2', vcpus=1), server('b', project='p1',
                                                   vcpus=2),
        server('c', project='p3', vcpus=4), server('d', project='p1',
                                                   vcpus=8),
        server('e', host='n2', project='p3', vcpus=2)])
    given = dict(compute_nodes=[{'src_node': 'n1', 'dst_node': 'n3'},
                                {'src_node': 'n2', 'dst_node': 'n3'}],
                 parallel_per_node=10, parallel_total=10)
    names = lambda s: [name for _, name, _ in plan(s)]  # noqa: E731
    assert names(run(compute, **given)) == ['a', 'b', 'c', 'd', 'e']
    assert names(run(compute, priority={
        'project': ['p1', 'p3'], 'compute': 'vcpu_num'}, **given)) == [
        'd', 'b', 'c', 'e', 'a']
    assert names(run(compute, priority={
        'compute': 'vcpu_num', 'project': ['p1', 'p3']}, **given)) == [
        'd', 'c', 'b', 'e', 'a']
    assert names(run(compute, priority={
        'compute_node': ['n2'], 'compute': 'created_at'}, **given)) == [
        'e', 'a', 'b', 'c', 'd']


def test_created_at_orders_servers_oldest_first():
    """``compute: created_at``: the oldest server first, one whose
    creation the model does not know before all."""
    made = {'a': datetime.datetime(2026, 1, 3), 'b': None,
            'c': datetime.datetime(2026, 1, 1)}
    changes = cluster(NODES, []).changes()
    for name, created in made.items():
        changes.put_instance(elements.Instance(
            uuid='uuid-' + name, name=name, host='n1', state='active',
            project_id='p1', vcpus=1, memory_mb=512, disk_gb=10,
            created_at=created))
    given = dict(compute_nodes=[{'src_node': 'n1', 'dst_node': 'n3'}],
                 parallel_per_node=10, parallel_total=10,
                 priority={'compute': 'created_at'})
    assert [name for _, name, _ in plan(run(changes.state(), **given))] \
        == ['b', 'c', 'a']


def test_priorities_order_volumes():
    store = storage([
        volume('v1', POOL1, 5, project='p2',
               created_at='2026-01-01T00:00:00'),
        volume('v2', POOL1, 50, project='p1',
               created_at='2026-01-02T00:00:00'),
        volume('v3', POOL2, 20, project='p1',
               created_at='2026-01-03T00:00:00')])
    given = dict(storage_pools=[{'src_pool': POOL1, 'dst_pool': POOL3},
                                {'src_pool': POOL2, 'dst_pool': POOL3}],
                 parallel_per_pool=10)
    names = lambda s: [name[5:] for _, name, _ in plan(s)]  # noqa: E731
    assert names(run(cluster(NODES, []), store, **given)) == [
        'v3', 'v2', 'v1']
    assert names(run(cluster(NODES, []), store, priority={
        'storage': 'created_at'}, **given)) == ['v1', 'v2', 'v3']
    assert names(run(cluster(NODES, []), store, priority={
        'storage': 'size'}, **given)) == ['v2', 'v3', 'v1']
    assert names(run(cluster(NODES, []), store, priority={
        'storage_pool': [POOL1], 'project': ['p2']}, **given)) == [
        'v1', 'v2', 'v3']


def test_parallel_limits_bound_the_plan():
    compute = cluster({'n1': 65536, 'n2': 65536, 'n3': 65536}, [
        server('a%d' % n) for n in range(4)] + [
        server('b%d' % n, host='n2') for n in range(4)])
    store = storage([volume('v%d' % n, POOL1, 1) for n in range(4)]
                    + [volume('w%d' % n, POOL2, 1) for n in range(4)])
    given = dict(compute_nodes=[{'src_node': 'n1'}, {'src_node': 'n2'}],
                 storage_pools=[{'src_pool': POOL1, 'dst_pool': POOL3},
                                {'src_pool': POOL2, 'dst_pool': POOL3}])
    # Defaults: 2 per pool, 2 per node, 6 in all; volumes first.
    found = plan(run(compute, store, **given))
    assert [kind for kind, _, _ in found] == ['migrate'] * 4 + ['live'] * 2
    assert sum(name.startswith('name-v') for _, name, _ in found) == 2
    found = plan(run(compute, store, parallel_total=20, **given))
    assert len(found) == 8
    assert len(plan(run(compute, store, parallel_total=20,
                        parallel_per_node=3, parallel_per_pool=1,
                        **given))) == 8
    assert plan(run(compute, store, parallel_total=0, **given)) == []
    solution = run(compute, store, parallel_per_pool=0, **given)
    assert len(plan(solution)) == 4
    # The counts of what is to move ignore the limits.
    assert solution.indicator_values['live_migrate_instance_count'] == 8
    assert solution.indicator_values['volume_migrate_count'] == 8
    assert solution.indicator_values['planned_volume_migrate_count'] == 0


def test_a_server_that_does_not_move_counts_against_its_node():
    compute = cluster(NODES, [server('a', vm_state='error'),
                              server('b', vm_state='suspended'),
                              server('c')])
    assert plan(run(compute, compute_nodes=[{'src_node': 'n1'}])) == []
    assert plan(run(compute, compute_nodes=[{'src_node': 'n1'}],
                    parallel_per_node=3)) == [('live', 'c', 'n3')]


def test_with_attached_volume_servers_follow_their_volumes():
    compute = cluster(NODES, [server('a'), server('b'), server('c'),
                              server('z', host='n2')])
    attached = lambda *names: tuple(  # noqa: E731
        ('uuid-' + n, 'att-' + n) for n in names)
    store = storage([
        volume('v1', POOL1, 1, status='in-use', attachments=attached('c'),
               created_at='2026-01-02T00:00:00'),
        # z is not on a source node: it stays.
        volume('v2', POOL1, 1, status='in-use',
               attachments=attached('z', 'b'),
               created_at='2026-01-01T00:00:00')])
    given = dict(compute_nodes=[{'src_node': 'n1', 'dst_node': 'n3'}],
                 storage_pools=[{'src_pool': POOL1, 'dst_pool': POOL2}],
                 parallel_per_node=5)
    assert plan(run(compute, store, **given)) == [
        ('migrate', 'name-v1', POOL2), ('migrate', 'name-v2', POOL2),
        ('live', 'a', 'n3'), ('live', 'b', 'n3'), ('live', 'c', 'n3')]
    assert plan(run(compute, store, with_attached_volume=True,
                    **given)) == [
        ('migrate', 'name-v1', POOL2), ('live', 'c', 'n3'),
        ('migrate', 'name-v2', POOL2), ('live', 'b', 'n3'),
        ('live', 'a', 'n3')]
    # The attached servers can fill the total: the volume is planned
    # all the same (one action over parallel_total), and nothing after.
    assert plan(run(compute, store, with_attached_volume=True,
                    parallel_total=1, **given)) == [
        ('migrate', 'name-v1', POOL2), ('live', 'c', 'n3')]


@pytest.mark.parametrize('parameters,where', [
    ({'storage_pools': [{'src_pool': POOL1}]}, 'storage_pools/0'),
    ({'storage_pools': [{'src_pool': POOL1, 'dst_pool': POOL2,
                         'dst_type': 'x'}]}, 'storage_pools/0'),
    ({'storage_pools': [{'dst_pool': POOL2}]}, 'storage_pools/0'),
    ({'compute_nodes': [{'dst_node': 'n2'}]}, 'compute_nodes/0'),
    ({'compute_nodes': [{'src_node': 'n1', 'other': 1}]},
     'compute_nodes/0'),
    ({'parallel_total': -1}, 'parallel_total'),
    ({'priority': {'compute': 'size'}}, 'priority/compute'),
    ({'priority': {'storage': 'vcpu_num'}}, 'priority/storage'),
    ({'priority': {'zone': ['a']}}, 'priority'),
    ({'with_attached_volume': 'yes'}, 'with_attached_volume'),
])
def test_parameters_are_checked_against_watchers_schema(parameters, where):
    with pytest.raises(exception.Invalid, match='at %s' % where):
        parameters_mod.check(zm.ZoneMigration.parameters_spec, parameters)


def test_defaults_are_watchers():
    assert parameters_mod.check(zm.ZoneMigration.parameters_spec, {}) == {
        'parallel_total': 6, 'parallel_per_node': 2, 'parallel_per_pool': 2,
        'with_attached_volume': False}
    assert zm.ZoneMigration.goal == 'hardware_maintenance'
    assert zm.ZoneMigration.data_models == ('compute', 'storage')


def test_the_source_nodes_servers_are_read_fresh():
    strategy = zm.ZoneMigration(None)
    assert strategy.fresh_hosts({'compute_nodes': [
        {'src_node': 'n2'}, {'src_node': 'n1', 'dst_node': 'n3'},
        {'src_node': 'n2', 'dst_node': 'n4'}]}) == {'compute': ['n1', 'n2']}
    assert strategy.fresh_hosts({'storage_pools': [
        {'src_pool': POOL1, 'dst_pool': POOL2}]}) == {}


# Watcher's algorithm, step by step (its filters move matching items to
# the front one at a time, one sort per priority key, last key first),
# on the same elements: the reference the plan must equal.

def _watcher_front(items, conditions, matches):
    for condition in reversed(conditions):
        for item in list(reversed(items)):
            if matches(item, condition):
                items.remove(item)
                items.insert(0, item)
    return items


def _watcher_order(targets, priority):
    getters = {'vcpu_num': lambda s: s.vcpus,
               'mem_size': lambda s: s.memory_mb,
               'disk_size': lambda s: s.disk_gb}
    for key, value in reversed(list(priority.items())):
        for kind in list(targets):
            items = targets[kind]
            if key == 'project':
                items = _watcher_front(items, value,
                                       lambda i, c: i.project_id == c)
            elif key == 'compute_node' and kind == zm.INSTANCE:
                items = _watcher_front(items, value, lambda i, c: i.host == c)
            elif key == 'storage_pool' and kind == zm.VOLUME:
                items = _watcher_front(items, value, lambda i, c: i.pool == c)
            elif key == 'compute' and kind == zm.INSTANCE and \
                    value in getters:
                items = sorted(items, key=lambda i: float(getters[value](i)),
                               reverse=True)
            elif key == 'storage' and kind == zm.VOLUME:
                items = (sorted(items, key=lambda v: float(v.size),
                                reverse=True) if value == 'size' else
                         sorted(items, key=lambda v: zm._created(
                             v.created_at)))
            targets[kind] = items
    return targets


def _watcher_plan(servers, volumes, parameters):
    total, per, planned, out = [0], {}, set(), []
    limit = {'node': parameters['parallel_per_node'],
             'pool': parameters['parallel_per_pool']}

    def full(kind, where):
        return per.get((kind, where), 0) >= limit[kind]

    def add(kind, where):
        per.setdefault((kind, where), 0)
        if total[0] < parameters['parallel_total'] and not full(kind, where):
            per[(kind, where)] += 1
            total[0] += 1

    def instances(items):
        for s in items:
            if s.uuid in planned:
                continue
            if total[0] >= parameters['parallel_total']:
                break
            if full('node', s.host):
                continue
            if s.state in zm.LIVE_STATES | zm.COLD_STATES:
                planned.add(s.uuid)
                out.append(s.name)
            add('node', s.host)

    targets = {s.uuid: s for s in servers}
    for v in volumes:
        if total[0] >= parameters['parallel_total']:
            break
        if full('pool', v.pool):
            continue
        out.append(v.name)
        if parameters['with_attached_volume']:
            instances([targets[uuid] for uuid in v.attached_servers
                       if uuid in targets])
        add('pool', v.pool)
    instances(servers)
    return out


def test_random_plans_are_watchers():
    rng = random.Random(7)
    for _ in range(150):
        nodes = {'n%d' % n: 10 ** 6 for n in range(4)}
        servers = [server('s%d' % n, host=rng.choice(['n0', 'n1', 'n2']),
                          vm_state=rng.choice(['active', 'stopped',
                                               'paused', 'error']),
                          project=rng.choice(['p1', 'p2', 'p3']),
                          vcpus=rng.randint(1, 4)) for n in range(12)]
        compute = cluster(nodes, servers)
        vols = [volume('v%02d' % n, rng.choice([POOL1, POOL2]),
                       rng.randint(1, 5), project=rng.choice(['p1', 'p2']),
                       status='in-use', attachments=(
                           ('uuid-s%d' % rng.randrange(12), 'a'),),
                       created_at='2026-01-%02dT00:00:00' % rng.randint(1, 9))
                for n in range(10)]
        store = storage(vols)
        priority = dict(rng.sample([
            ('project', rng.sample(['p1', 'p2', 'p3'], 2)),
            ('compute_node', ['n2']), ('storage_pool', [POOL2]),
            ('compute', rng.choice(['vcpu_num', 'mem_size'])),
            ('storage', rng.choice(['size', 'created_at']))],
            rng.randint(0, 5)))
        given = parameters_mod.check(zm.PARAMETERS_SPEC, dict(
            compute_nodes=[{'src_node': 'n0', 'dst_node': 'n3'},
                           {'src_node': 'n1', 'dst_node': 'n3'}],
            storage_pools=[{'src_pool': POOL1, 'dst_pool': POOL3},
                           {'src_pool': POOL2, 'dst_pool': POOL3}],
            parallel_total=rng.randint(0, 10),
            parallel_per_node=rng.randint(0, 4),
            parallel_per_pool=rng.randint(0, 4),
            with_attached_volume=rng.random() < 0.5, priority=priority))
        found = [name for _, name, _ in plan(run(compute, store, **given))]
        # Watcher reads the servers in this order, the volumes newest
        # first (Cinder's list), then sorts.
        listed = {
            zm.INSTANCE: [compute.instance('uuid-' + s[0]) for s in sorted(
                (s for s in servers if s[1] in ('n0', 'n1')),
                key=lambda s: (s[1], 'uuid-' + s[0]))],
            zm.VOLUME: sorted(store.volumes.values(), reverse=True,
                              key=lambda v: (v.created_at, v.uuid))}
        ordered = _watcher_order(listed, priority)
        assert found == _watcher_plan(ordered[zm.INSTANCE],
                                      ordered[zm.VOLUME], given), given
