"""What a plan leaves each failover segment to absorb a host failure, and
how much of its audit's disruption budget its moves take."""

import random

from tests import strategy_clusters as clusters
from watcher_ha.common.instance_ha import packing
from watcher_ha.decision_engine.what_if import budgets
from watcher_ha.decision_engine.what_if import failover
from watcher_ha.decision_engine.what_if import projection


def migrate(uuid, server, source, destination, parents=()):
    return {'uuid': uuid, 'action_type': 'migrate', 'parents': list(parents),
            'input_parameters': {
                'resource_id': 'uuid-' + server, 'migration_type': 'live',
                'source_node': source, 'destination_node': destination}}


def segment(name, method, hosts, reserved=(), maintenance=()):
    return {'uuid': '00000000-0000-4000-8000-%012d' % len(name),
            'name': name, 'recovery_method': method, 'enabled': True,
            'hosts': [{'name': host, 'reserved': host in reserved,
                       'on_maintenance': host in maintenance,
                       'claimed_by': None} for host in hosts]}


def sides(run):
    return (failover.Side(run.before, dict(run.before.nodes.items()),
                          run.used_before, run.capacity),
            failover.Side(run.after, run.nodes, run.used, run.capacity,
                          run.held))


def capacity(segments, state, actions):
    protected = frozenset(h['name'] for s in segments for h in s['hosts']
                          if h['reserved'] or h['on_maintenance'])
    run = projection.Projection(state, actions)
    return failover.capacity(segments, protected, *sides(run))


def test_a_plan_that_packs_a_host_past_its_reserved_hosts_says_so():
    """h1 and h2 each hold 4 vcpus; the reserved host r has room for 6:
    either failure is absorbed before the plan, and none of h2's after the
    plan moves h1's servers onto it."""
    state = clusters.build(
        [clusters.node(name, vcpus=8) for name in ('h1', 'h2', 'r')],
        [clusters.server('a', 'h1', vcpus=4),
         clusters.server('b', 'h2', vcpus=4),
         clusters.server('x', 'r', vcpus=2)])
    [found] = capacity([segment('rack', 'reserved_host',
                                ['h1', 'h2', 'r'], reserved=['r'])],
                       state, [migrate('1', 'a', 'h1', 'h2')])
    before, after = found['before'], found['after']
    assert before['reserved_hosts'] == after['reserved_hosts'] == ['r']
    assert before['reserved_free']['vcpus'] == 6
    assert (before['hosts'], before['absorbed'],
            before['not_absorbed']) == (2, 2, [])
    assert (after['absorbed'], after['not_absorbed']) == (1, ['h2'])
    assert before['most_reserved_hosts_one_failure_takes'] == 1


def test_auto_counts_the_free_room_of_the_enabled_hosts_but_the_failed():
    """A consolidation that empties h3 and disables it takes its room out
    of what Nova may evacuate onto: neither busy host's failure fits in
    what is left."""
    state = clusters.build(
        [clusters.node(name, vcpus=8) for name in ('h1', 'h2', 'h3')],
        [clusters.server('a', 'h1', vcpus=6),
         clusters.server('b', 'h2', vcpus=2),
         clusters.server('c', 'h3', vcpus=2)])
    [found] = capacity(
        [segment('all', 'auto', ['h1', 'h2', 'h3'])], state,
        [migrate('1', 'c', 'h3', 'h2'),
         {'uuid': '2', 'action_type': 'change_nova_service_state',
          'parents': ['1'], 'input_parameters': {
              'resource_name': 'h3', 'state': 'disabled'}}])
    assert found['before']['not_absorbed'] == []
    assert found['before']['absorbed'] == 3
    # h1 needs 6 vcpus, h2 4: the enabled others have 4 and 2 free.
    assert found['after']['not_absorbed'] == ['h1', 'h2']
    # An empty host's failure loses nothing.
    assert found['after']['absorbed'] == 1


def test_a_host_on_maintenance_or_down_is_not_counted():
    state = clusters.build(
        [clusters.node('h1', vcpus=8), clusters.node('h2', vcpus=8),
         clusters.node('h3', vcpus=8, state='down')],
        [clusters.server('a', 'h1', vcpus=2),
         clusters.server('b', 'h2', vcpus=2),
         clusters.server('c', 'h3', vcpus=2)])
    [found] = capacity([segment('s', 'auto', ['h1', 'h2', 'h3'],
                                maintenance=['h2'])], state, [])
    assert found['before']['hosts'] == 1


def test_budgets_count_the_moves_against_the_audits_limits():
    state = clusters.build(
        [clusters.node(name, vcpus=8) for name in ('h1', 'h2', 'h3')],
        [clusters.server('a', 'h1', project_id='p1'),
         clusters.server('b', 'h1', project_id='p2'),
         clusters.server('c', 'h2', project_id='p2')])
    run = projection.Projection(state, [
        migrate('1', 'a', 'h1', 'h3'), migrate('2', 'b', 'h1', 'h3'),
        migrate('3', 'c', 'h2', 'h3')])
    rows = {row['name']: row for row in budgets.used(run.moved(), {
        'max_migrations': 3, 'max_migrations_per_host': 1})}
    assert rows['max_migrations'] == dict(
        rows['max_migrations'], limit=3, used=3, where=None, within=True)
    assert rows['max_migrations_per_host'] == dict(
        rows['max_migrations_per_host'], limit=1, used=2, where='h1',
        within=False)
    assert rows['max_migrations_per_project'] == dict(
        rows['max_migrations_per_project'], limit=0, used=2, where='p2',
        within=True)
    assert 'per host' not in rows['max_migrations']['description']


def test_what_the_reserved_hosts_take_is_what_the_claim_would_pack():
    """The plain cases answered without packing agree with the packing
    a recovery's claim makes (common/instance_ha/packing.py)."""
    rng = random.Random(7)
    for _ in range(300):
        servers = {'s%d' % i: packing.Size(rng.randint(1, 8),
                                           rng.randint(1, 16) * 1024,
                                           rng.randint(1, 8) * 10)
                   for i in range(rng.randint(1, 6))}
        free = {'r%d' % i: {'vcpus': rng.randint(0, 24),
                            'memory_mb': rng.randint(0, 48) * 1024,
                            'disk_gb': rng.randint(0, 30) * 10}
                for i in range(rng.randint(1, 4))}
        need = {r: sum(getattr(s, r) for s in servers.values())
                for r in failover.RESOURCES}
        room = {r: sum(f[r] for f in free.values())
                for r in failover.RESOURCES}
        largest = free[packing.largest_first(free)[0]]
        packed = packing.fewest_hosts(servers, free)
        assert failover._reserved_hosts_taken(
            servers, need, free, room, largest) == (
            None if packed.unplaced else len(packed.hosts)), (servers, free)
