"""workload_preemption on model snapshots: its parameters checked as the
API checks them, the thresholds met by the fewest servers in the
preference order, and what it says when it cannot meet them."""

import pytest

from tests import strategy_clusters as c
from tests.helpers.preemptible_cluster import HOUR
from tests.helpers.preemptible_cluster import NOW
from tests.helpers.preemptible_cluster import server
from watcher_ha.common import audit_scope
from watcher_ha.common import exception
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.common import plugins
from watcher_ha.decision_engine import scope
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import workload_preemption

SPEC = workload_preemption.WorkloadPreemption.parameters_spec


def checked(**given):
    return parameters_mod.check(SPEC, given)


def run(cluster, protected=(), **given):
    goal = plugins.load_classes(plugins.GOALS)['workload_optimization']
    strategy = workload_preemption.WorkloadPreemption(goal)
    strategy.protected_hosts = frozenset(protected)
    strategy.now = lambda: NOW
    return strategy.execute({}, checked(**given),
                            models={'compute': cluster})


def preempted(solution):
    return [(a.action_type, a.input_parameters['resource_name'])
            for a in solution.actions]


# Parameters.

def test_defaults_are_the_specs():
    assert checked() == {'min_instance_age': 3600,
                         'preemption_preference': [['age', 'dec']],
                         'preemption_mode': 'delete',
                         'max_migrations': 0, 'max_migrations_per_host': 0,
                         'max_migrations_per_project': 0}


@pytest.mark.parametrize('given', [
    {'cpu_free_percentage': 0, 'ram_free_percentage': 100,
     'disk_free_percentage': 12.5},
    {'preemption_preference': [['resource:vcpu', 'dec'],
                               ['resource:memory_mb', 'asc'],
                               ['age', 'dec']]},
    {'preemption_preference': [['resource:CUSTOM_GPU_A100', 'dec']]},
    {'preemption_preference': [['resource:PCPU', 'asc'],
                               ['resource:VGPU', 'dec']]},
    {'preemption_mode': 'shelve', 'min_instance_age': 0},
])
def test_accepted(given):
    assert checked(**given)


@pytest.mark.parametrize('given,says', [
    ({'cpu_free_percentage': -1}, 'cpu_free_percentage'),
    ({'ram_free_percentage': 100.5}, 'ram_free_percentage'),
    ({'disk_free_percentage': '20'}, 'disk_free_percentage'),
    ({'min_instance_age': -5}, 'min_instance_age'),
    ({'min_instance_age': 1.5}, 'min_instance_age'),
    ({'preemption_mode': 'stop'}, 'preemption_mode'),
    ({'preemption_preference': []}, 'preemption_preference'),
    ({'preemption_preference': 'age'}, 'preemption_preference'),
    ({'preemption_preference': [['size', 'dec']]},
     'preemption_preference/0/0'),
    ({'preemption_preference': [['resource:', 'dec']]},
     'preemption_preference/0/0'),
    ({'preemption_preference': [['resource:GPU', 'dec']]},
     'preemption_preference/0/0'),
    ({'preemption_preference': [['resource:CUSTOM-GPU', 'dec']]},
     'preemption_preference/0/0'),
    ({'preemption_preference': [['vcpu', 'dec']]},
     'preemption_preference/0/0'),
    ({'preemption_preference': [['age', 'desc']]},
     'preemption_preference/0/1'),
    ({'preemption_preference': [['age', 'down']]},
     'preemption_preference/0/1'),
    ({'preemption_preference': [['age']]}, 'preemption_preference/0'),
    ({'preemption_preference': [['age', 'dec', 'again']]},
     'preemption_preference/0'),
    ({'max_migrations': -1}, 'max_migrations'),
    ({'threshold': 20}, 'threshold'),
])
def test_refused_with_a_400_naming_the_parameter(given, says):
    with pytest.raises(exception.Invalid) as caught:
        checked(**given)
    assert caught.value.code == 400
    assert says in str(caught.value)


# Threshold arithmetic over the cluster.

def cluster(servers, nodes=None):
    """Two 10-vCPU, 10,000 MB, 100 GB nodes by default."""
    nodes = nodes or [c.node('n1', vcpus=10, memory_mb=10000, disk_gb=100),
                      c.node('n2', vcpus=10, memory_mb=10000, disk_gb=100)]
    return c.build(nodes, servers)


# 20 vCPUs, 20,000 MB and 200 GB in all; 16 vCPUs, 16,000 MB and 100 GB
# allocated: 20 % of the vCPUs and RAM free, 50 % of the disk.
FULL = [
    server('oldest', age=9 * HOUR, vcpus=2, memory_mb=1000, disk_gb=10),
    server('big', age=3 * HOUR, vcpus=4, memory_mb=6000, disk_gb=40,
           host='n2'),
    server('middle', age=5 * HOUR, vcpus=2, memory_mb=1000, disk_gb=10),
    server('young', age=HOUR - 60, vcpus=4, memory_mb=4000, disk_gb=20,
           host='n2'),
    server('normal', preemptable=None, vcpus=4, memory_mb=4000,
           disk_gb=20),
]


def test_one_threshold_preempts_the_oldest_until_met():
    # 30 % free vCPUs: 2 more to free; the oldest frees them.
    solution = run(cluster(FULL), cpu_free_percentage=30)
    assert preempted(solution) == [('delete', 'oldest')]
    assert solution.indicator_values == {
        'preempted_instances_count': 1, 'vcpu_freed': 2,
        'mem_mb_freed': 1000, 'disk_gb_freed': 10}
    assert solution.note is None


def test_it_stops_as_soon_as_every_threshold_is_met():
    # 40 %: 4 vCPUs to free, two servers of the age order.
    assert preempted(run(cluster(FULL), cpu_free_percentage=40)) == [
        ('delete', 'oldest'), ('delete', 'middle')]


def test_two_thresholds_both_met():
    # vCPUs: 2 to free (the oldest); RAM 50 %: 6,000 MB, which takes
    # the oldest, the middle one and the big one.
    solution = run(cluster(FULL), cpu_free_percentage=30,
                   ram_free_percentage=50)
    assert preempted(solution) == [('delete', 'oldest'),
                                   ('delete', 'middle'), ('delete', 'big')]
    assert solution.indicator_values['mem_mb_freed'] == 8000


def test_three_thresholds():
    # Disk 60 %: 20 GB; vCPU 25 %: 1; RAM 30 %: 2,000 MB.
    solution = run(cluster(FULL), cpu_free_percentage=25,
                   ram_free_percentage=30, disk_free_percentage=60)
    assert preempted(solution) == [('delete', 'oldest'),
                                   ('delete', 'middle')]
    assert solution.indicator_values == {
        'preempted_instances_count': 2, 'vcpu_freed': 4,
        'mem_mb_freed': 2000, 'disk_gb_freed': 20}


def test_the_preference_picks_fewer():
    # By size, the big one alone frees the 4 vCPUs.
    assert preempted(run(
        cluster(FULL), cpu_free_percentage=40,
        preemption_preference=[['resource:VCPU', 'dec'],
                               ['age', 'dec']])) == [('delete', 'big')]


def test_already_met_there_is_nothing_to_do():
    with pytest.raises(base.NothingToDo) as caught:
        run(cluster(FULL), cpu_free_percentage=20, ram_free_percentage=10,
            disk_free_percentage=50)
    assert str(caught.value) == (
        'the free allocated capacity meets every threshold: vCPU 20.0 % '
        'free (20 % asked), RAM 20.0 % free (10 % asked), disk 50.0 % '
        'free (50 % asked)')


def test_no_threshold_set_fails_saying_which_to_set():
    with pytest.raises(base.StrategyError, match='cpu_free_percentage, '
                       'ram_free_percentage, disk_free_percentage'):
        run(cluster(FULL))


def test_impossible_preempts_every_candidate_and_says_by_how_much():
    solution = run(cluster(FULL), cpu_free_percentage=90)
    # Never the normal one nor the young one.
    assert preempted(solution) == [('delete', 'oldest'),
                                   ('delete', 'middle'), ('delete', 'big')]
    assert solution.note == (
        'the thresholds cannot be met: preempting every candidate it may '
        '(3 server(s) found) leaves 6 of vCPU still to free; preemptible '
        'servers that are no candidates: 1 (younger than '
        'min_instance_age)')


def test_no_candidate_at_all_is_an_empty_plan_that_says_so():
    solution = run(cluster([s for s in FULL if s.name in
                            ('young', 'normal')]), cpu_free_percentage=90)
    assert solution.actions == []
    assert solution.indicator_values['preempted_instances_count'] == 0
    assert solution.note.startswith('the thresholds cannot be met: '
                                    'preempting every candidate it may '
                                    '(0 server(s) found)')


def test_never_a_normal_or_young_server():
    for percent in range(0, 101, 5):
        try:
            solution = run(cluster(FULL), cpu_free_percentage=percent,
                           ram_free_percentage=percent,
                           disk_free_percentage=percent)
        except base.NothingToDo:
            continue
        assert not {'young', 'normal'} & {
            name for _, name in preempted(solution)}, percent


def test_a_server_that_frees_nothing_still_short_is_passed_over():
    servers = [server('volume-only', age=9 * HOUR, vcpus=1,
                      memory_mb=1000, disk_gb=0),
               server('disk', age=2 * HOUR, vcpus=1, memory_mb=1000,
                      disk_gb=90)]
    assert preempted(run(cluster(servers), disk_free_percentage=60)) == [
        ('delete', 'disk')]


# How each server is preempted.

def test_shelve_mode_and_the_flavors_policy():
    servers = [server('a', age=9 * HOUR, vcpus=4),
               server('b', age=8 * HOUR, vcpus=4, policy='delete'),
               server('c', age=7 * HOUR, vcpus=4, policy='Shelve'),
               server('d', age=6 * HOUR, vcpus=4, policy='maybe')]
    # In the age order; d's flavor says neither, so it stays.
    assert preempted(run(cluster(servers), cpu_free_percentage=90,
                         preemption_mode='shelve')) == [
        ('shelve', 'a'), ('delete', 'b'), ('shelve', 'c')]
    assert sorted(preempted(run(cluster(servers),
                                cpu_free_percentage=90))) == [
        ('delete', 'a'), ('delete', 'b'), ('shelve', 'c')]


def test_the_action_names_the_server():
    [action] = run(cluster(FULL), cpu_free_percentage=30).actions
    assert action.action_type == 'delete'
    assert action.input_parameters == {'resource_id': 'uuid-oldest',
                                       'resource_name': 'oldest'}
    assert action.resource_id == 'uuid-oldest'


# Where.

def test_hosts_that_take_no_new_server_are_out_of_the_pool():
    nodes = [c.node('n1', vcpus=10, memory_mb=10000, disk_gb=100),
             c.node('n2', vcpus=10, memory_mb=10000, disk_gb=100,
                    status='disabled'),
             c.node('n3', vcpus=10, memory_mb=10000, disk_gb=100)]
    servers = [server('on-disabled', age=9 * HOUR, vcpus=8, host='n2'),
               server('on-reserved', age=9 * HOUR, vcpus=8, host='n3'),
               server('here', age=2 * HOUR, vcpus=8, host='n1')]
    # n1 alone: 8 of 10 vCPUs used, 20 % free.
    solution = run(cluster(servers, nodes), protected={'n3'},
                   cpu_free_percentage=50)
    assert preempted(solution) == [('delete', 'here')]
    with pytest.raises(base.NothingToDo, match='no compute node'):
        run(cluster(servers, nodes), protected={'n1', 'n3'},
            cpu_free_percentage=50)


def test_a_scoped_audit_sees_its_scope_only():
    nodes = [c.node('n1', vcpus=10, aggregates=frozenset(['rack-1'])),
             c.node('n2', vcpus=10, aggregates=frozenset(['rack-2']))]
    servers = [server('rack-1-old', age=9 * HOUR, vcpus=8),
               server('rack-2-older', age=99 * HOUR, vcpus=8, host='n2')]
    whole = c.build(nodes, servers, [
        c.elements.Aggregate(name='rack-1', id=1),
        c.elements.Aggregate(name='rack-2', id=2)])
    scoped = scope.apply(whole, audit_scope.check(
        [{'host_aggregates': [{'name': 'rack-1'}]}]))
    assert preempted(run(scoped, cpu_free_percentage=50)) == [
        ('delete', 'rack-1-old')]
    assert preempted(run(whole, cpu_free_percentage=50)) == [
        ('delete', 'rack-2-older')]


# The disruption budget.

def test_the_budget_holds_back_and_the_plan_says_so():
    solution = run(cluster(FULL), cpu_free_percentage=40, max_migrations=1)
    assert preempted(solution) == [('delete', 'oldest')]
    assert 'leaves 2 of vCPU still to free' in solution.note
    assert 'held back 2 candidate(s)' in solution.note


def test_the_budget_per_host_passes_to_the_next():
    # Two on n1 (oldest, middle), the big one on n2: one per host.
    solution = run(cluster(FULL), cpu_free_percentage=40,
                   max_migrations_per_host=1)
    assert preempted(solution) == [('delete', 'oldest'), ('delete', 'big')]
    assert solution.note is None


def test_the_budget_per_project():
    servers = [server('p1-a', age=9 * HOUR, vcpus=4, project_id='p1'),
               server('p1-b', age=8 * HOUR, vcpus=4, project_id='p1'),
               server('p2', age=7 * HOUR, vcpus=4, project_id='p2')]
    assert preempted(run(cluster(servers), cpu_free_percentage=90,
                         max_migrations_per_project=1)) == [
        ('delete', 'p1-a'), ('delete', 'p2')]
