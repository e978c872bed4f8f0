"""storage_capacity_balance on hand-made storage states: which pools give
volumes up, where each volume goes (migrate within its type's backends,
retype where Watcher does), never to a pool without room or a backend
Cinder does not schedule on, within the audit's budget; and, on random
clouds, never a worse plan than Watcher's order of volumes."""

import random

import pytest

from tests.helpers.storage_cluster import build
from tests.helpers.storage_cluster import moves
from tests.helpers.storage_cluster import node
from tests.helpers.storage_cluster import pool
from tests.helpers.storage_cluster import run
from tests.helpers.storage_cluster import volume
from tests.helpers.storage_cluster import vtype
from watcher_ha.conf import CONF
from watcher_ha.decision_engine.model import storage_elements as se
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import storage_capacity_balance as scb

GROUP = scb.GROUP


def used_after(state, solution):
    """{pool: used GiB} once the plan's migrations are made."""
    used = {name: p.total_capacity_gb - p.free_capacity_gb
            for name, p in state.pools.items()}
    for uuid, kind, where in moves(solution):
        assert kind == 'migrate'
        moved = state.volume(uuid)
        used[moved.pool] -= moved.size
        used[where] += moved.size
    return used


A, B, C = 'st1@lvm#p1', 'st2@lvm#p1', 'st3@lvm#p1'
NODES = [node('st1@lvm'), node('st2@lvm'), node('st3@lvm')]


def test_the_strategy_is_watchers():
    cls = scb.StorageCapacityBalance
    assert (cls.name, cls.goal, cls.display_name) == (
        'storage_capacity_balance', 'workload_balancing',
        'Storage Capacity Balance Strategy')
    assert cls.parameters_spec['properties']['volume_threshold'] == {
        'description': 'volume threshold for capacity balance',
        'type': 'number', 'default': 80.0}
    assert cls.data_models == ('storage',)


def test_without_the_storage_model_the_audit_fails_saying_how_to_fix():
    with pytest.raises(base.StrategyError) as err:
        run(None)
    assert '[watcher_decision_engine] collectors' in str(err.value)


def test_an_over_full_pool_gives_up_the_fewest_volumes_to_the_roomiest():
    # A: 90 of 100 used; the threshold 80 needs more than 10 GiB off.
    vols = [volume('v%d' % size, A, size) for size in (1, 2, 3, 4, 5, 9)]
    vols.append(volume('big', A, 66))
    state = build(NODES, [pool(A, 100, 10), pool(B, 100, 60),
                          pool(C, 100, 80)], vols)
    solution = run(state)
    # Watcher's order would move 1, 2, 3, 4 and 5 (five moves); here the
    # 9 and then the smallest that finishes the job, the 2: two moves.
    assert moves(solution) == [('v9', 'migrate', C), ('v2', 'migrate', C)]
    assert all(used < 80 for used in used_after(state, solution).values())
    assert solution.indicator_values == {'instance_migrations_count': 0,
                                         'instances_count': 0}
    action = solution.actions[0]
    assert action.action_type == 'volume_migrate'
    assert action.input_parameters == {
        'migration_type': 'migrate', 'destination_node': C,
        'resource_name': 'name-v9', 'resource_id': 'v9'}


def test_one_volume_that_is_enough_is_the_smallest_that_is():
    vols = [volume('v%d' % size, A, size) for size in (11, 12, 30)]
    state = build(NODES, [pool(A, 100, 10), pool(B, 100, 90)], vols)
    assert moves(run(state)) == [('v11', 'migrate', B)]


def test_nothing_to_do_below_the_threshold_and_at_it_something():
    state = build(NODES, [pool(A, 100, 21), pool(B, 100, 90)],
                  [volume('v', A, 5)])
    assert moves(run(state)) == []
    # 80 used of 100 is at the threshold: Watcher's source.
    state = build(NODES, [pool(A, 100, 20), pool(B, 100, 90)],
                  [volume('v', A, 5)])
    assert moves(run(state)) == [('v', 'migrate', B)]
    assert moves(run(state, volume_threshold=85.0)) == []


def test_a_destination_stays_below_the_threshold():
    # B has 70 used: it takes less than 10 GiB, one of the 9 or the 8,
    # not both. A stays above the threshold either way: the plan that
    # leaves it nearer is kept.
    state = build(NODES, [pool(A, 100, 5), pool(B, 100, 30)],
                  [volume('v10', A, 10), volume('v9', A, 9),
                   volume('v8', A, 8)])
    assert moves(run(state)) == [('v9', 'migrate', B)]


def test_never_more_than_cinder_counts_free_thick_or_thin():
    # B: far below the threshold, but Cinder counts 4 GiB free there
    # (virtual_free: its free space less the reserved share).
    reserved = pool(B, 1000, 100)
    reserved = se.Pool(**{**{f: getattr(reserved, f) for f in (
        'name', 'total_capacity_gb', 'allocated_capacity_gb',
        'provisioned_capacity_gb', 'volume_backend_name')},
        'free_capacity_gb': 300.0, 'virtual_free': 4.0})
    state = build(NODES, [pool(A, 100, 10), reserved],
                  [volume('v5', A, 5), volume('v4', A, 4),
                   volume('v3', A, 3), volume('v2', A, 2)])
    # 4 GiB fit on B at most: the 4, and nothing more goes.
    assert moves(run(state)) == [('v4', 'migrate', B)]
    # A thin pool: 40 GiB written of 100, but 140 provisioned, at a ratio
    # of 1.5: Cinder places 10 GiB more there, whatever its free space.
    thin = se.Pool(name=C, total_capacity_gb=100.0, free_capacity_gb=60.0,
                   allocated_capacity_gb=140.0,
                   provisioned_capacity_gb=140.0, virtual_free=10.0,
                   volume_backend_name='lvm',
                   thin_provisioning_support=True,
                   max_over_subscription_ratio=1.5)
    state = build(NODES, [pool(A, 100, 10), thin],
                  [volume('v%d' % n, A, 20) for n in range(3)]
                  + [volume('v9', A, 9)])
    assert moves(run(state)) == [('v9', 'migrate', C)]


def test_a_backend_down_or_disabled_takes_nothing():
    nodes = [node('st1@lvm'), node('st2@lvm', state='down'),
             node('st3@lvm', status='disabled')]
    state = build(nodes, [pool(A, 100, 5), pool(B, 100, 90),
                          pool(C, 100, 90)], [volume('v', A, 20)])
    assert moves(run(state)) == []


def test_a_disabled_backend_is_drained_but_a_down_one_is_not():
    nodes = [node('st1@lvm', status='disabled'), node('st2@lvm'),
             node('st3@lvm', state='down')]
    state = build(nodes, [pool(A, 100, 5), pool(B, 100, 90),
                          pool('st3@lvm#p1', 100, 5)],
                  [volume('v', A, 20), volume('w', C, 20)])
    assert moves(run(state)) == [('v', 'migrate', B)]


def test_a_typed_volume_migrates_within_its_types_backends_only():
    types = [vtype('fast', 'fast'), vtype('slow', 'slow')]
    nodes = [node('st1@fast'), node('st2@fast'), node('st3@slow')]
    pools = [pool('st1@fast#p1', 100, 10), pool('st2@fast#p1', 100, 75),
             pool('st3@slow#p1', 1000, 990)]
    state = build(nodes, pools, [
        volume('f20', 'st1@fast#p1', 20, type_name='fast'),
        volume('f12', 'st1@fast#p1', 12, type_name='fast')], types)
    assert moves(run(state)) == [('f12', 'migrate', 'st2@fast#p1')]


def test_a_volume_retypes_where_no_pool_of_its_type_has_room():
    # Watcher's retype: a type of another backend with the same other
    # extra specs; the scheduler puts it on that backend's roomiest pool.
    types = [vtype('fast', 'fast', tier='gold'),
             vtype('fast2', 'fast2', tier='gold'),
             vtype('cheap', 'cheap', tier='bronze')]
    nodes = [node('st1@fast'), node('st2@fast2'), node('st3@cheap')]
    pools = [pool('st1@fast#p1', 100, 10), pool('st2@fast2#p1', 100, 80),
             pool('st2@fast2#p2', 100, 85), pool('st3@cheap#p1', 100, 100)]
    state = build(nodes, pools, [
        volume('v', 'st1@fast#p1', 15, type_name='fast')], types)
    solution = run(state)
    assert moves(solution) == [('v', 'retype', 'fast2')]
    assert solution.actions[0].input_parameters == {
        'migration_type': 'retype', 'destination_type': 'fast2',
        'resource_name': 'name-v', 'resource_id': 'v'}


def test_no_retype_when_the_scheduler_would_pick_a_full_pool():
    # The new type's roomiest pool (by Cinder's virtual free, thin) is
    # above the threshold: Cinder would put the volume there.
    types = [vtype('fast', 'fast'), vtype('other', 'other')]
    nodes = [node('st1@fast'), node('st2@other'), node('st3@other')]
    pools = [pool('st1@fast#p1', 100, 10),
             pool('st2@other#p1', 100, 5, thin=True),
             pool('st3@other#p1', 100, 90)]
    state = build(nodes, pools, [
        volume('v', 'st1@fast#p1', 15, type_name='fast')], types)
    assert moves(run(state)) == []


def test_no_retype_to_a_type_the_pool_satisfies_or_of_other_specs():
    types = [vtype('fast', 'fast', tier='gold'), vtype('anywhere'),
             vtype('bronze', 'other', tier='bronze')]
    nodes = [node('st1@fast'), node('st2@other')]
    pools = [pool('st1@fast#p1', 100, 10), pool('st2@other#p1', 100, 100)]
    state = build(nodes, pools, [
        volume('v', 'st1@fast#p1', 15, type_name='fast')], types)
    assert moves(run(state)) == []


def test_available_volumes_go_before_those_in_use_and_booting_last():
    vols = [volume('boot', A, 30, status='in-use', bootable=True),
            volume('data', A, 30, status='in-use'),
            volume('free', A, 5)]
    state = build(NODES, [pool(A, 100, 10), pool(B, 1000, 1000)], vols)
    assert moves(run(state)) == [('free', 'migrate', B),
                                 ('data', 'migrate', B)]


def test_volumes_that_cannot_move_stay():
    vols = [volume('error', A, 30, status='error'),
            volume('migrating', A, 30, migration_status='migrating'),
            volume('shared', A, 30, status='in-use', multiattach=True,
                   attachments=(('s1', 'a1'), ('s2', 'a2'))),
            volume('ok', A, 30, migration_status='success')]
    state = build(NODES, [pool(A, 200, 20), pool(B, 1000, 1000)], vols)
    assert moves(run(state)) == [('ok', 'migrate', B)]


def test_max_migrations_bounds_the_volumes_moved():
    vols = [volume('v%d' % n, A, 10) for n in range(5)] + \
        [volume('w%d' % n, B, 10, project='p2') for n in range(5)]
    state = build(NODES, [pool(A, 100, 0), pool(B, 100, 0),
                          pool(C, 1000, 1000)], vols)
    assert len(run(state).actions) == 6
    assert len(run(state, max_migrations=4).actions) == 4
    per_pool = moves(run(state, max_migrations_per_host=2))
    assert len(per_pool) == 4
    per_project = moves(run(state, max_migrations_per_project=1))
    assert {uuid[0] for uuid, _kind, _where in per_project} == {'v', 'w'}
    assert len(per_project) == 2


def test_ex_pools_are_left_alone(config):
    assert CONF[GROUP].ex_pools == ['local_vstorage']
    state = build(NODES, [pool(A, 100, 5), pool(B, 100, 90)],
                  [volume('v', A, 20)])
    config.config(ex_pools=['p1'], group=GROUP)
    assert moves(run(state)) == []
    config.config(ex_pools=[B], group=GROUP)
    assert moves(run(state)) == []
    config.config(ex_pools=['elsewhere'], group=GROUP)
    assert moves(run(state)) == [('v', 'migrate', B)]


def _watchers_result(state, threshold):
    """(pools left at or above the threshold, moves) of Watcher's
    volume order on ``state``, under the same placement rules."""
    plan = scb.plan_moves(state, threshold, {}, order=scb.SMALLEST_FIRST)
    return plan.score()[:2]


@pytest.mark.parametrize('seed', range(60))
def test_never_worse_than_watchers_order_and_never_overfilled(seed):
    rng = random.Random(seed)
    nodes = [node('st%d@lvm' % n) for n in range(6)]
    pools, vols = [], []
    for n in range(6):
        name = 'st%d@lvm#p1' % n
        sizes = [rng.randint(1, 40) for _ in range(rng.randint(0, 25))]
        total = max(sum(sizes) + rng.randint(0, 200), 1)
        pools.append(pool(name, total, total - sum(sizes)))
        vols += [volume('%d-%d' % (n, i), name, size,
                        status=rng.choice(['available', 'in-use']),
                        bootable=rng.random() < 0.3)
                 for i, size in enumerate(sizes)]
    state = build(nodes, pools, vols)
    threshold = rng.choice([50.0, 70.0, 80.0])
    solution = run(state, volume_threshold=threshold)
    plan = scb.plan_moves(state, threshold / 100, {})
    ours = min(plan.score(), scb.plan_moves(
        state, threshold / 100, {}, order=scb.SMALLEST_FIRST).score())
    assert ours[:2] <= _watchers_result(state, threshold / 100)
    after = used_after(state, solution)
    sources = {p.name for p in pools
               if p.total_capacity_gb - p.free_capacity_gb
               >= threshold / 100 * p.total_capacity_gb}
    for p in pools:
        if p.name not in sources:
            # A destination never reaches the threshold.
            assert after[p.name] < threshold / 100 * p.total_capacity_gb
    assert len({uuid for uuid, _k, _w in moves(solution)}) == \
        len(solution.actions)
