"""noisy_neighbor's decisions on small hand-made clusters."""

import pytest

from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.decision_engine.datasources import base as datasources
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.goal import noisy_neighbor as goal
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import noisy_neighbor as nn


class CacheHistory(datasources.Datasource):
    """instance_l3_cache_usage by period: ``now`` over the last period,
    ``before`` over the one ahead of it (so the mean over twice the
    period is their mean)."""
    name = 'history'
    metric_map = {'instance_l3_cache_usage': 'l3'}

    def __init__(self, now, before, period=100.0):
        self.answers = {period: now,
                        2 * period: {uuid: (now[uuid] + before[uuid]) / 2
                                     for uuid in now if uuid in before}}
        self.queries = []

    def statistics(self, metric, resources, period, aggregate,
                   granularity):
        self.queries.append((metric, period, aggregate, granularity))
        known = self.answers.get(period, {})
        return {r.uuid: known[r.uuid] for r in resources if r.uuid in known}


def server(name, host, priority=None, **values):
    if priority is not None:
        values['metadata'] = elements.frozen_mapping(
            {'watcher-priority': str(priority)})
    return c.server(name, host, **values)


def run(cluster, cache, protected=(), **given):
    """``cache``: {server name: (use now, use before)}."""
    strategy = nn.NoisyNeighbor(goal.NoisyNeighbor)
    strategy.protected_hosts = frozenset(protected)
    checked = parameters_mod.check(strategy.parameters_spec, given)
    source = CacheHistory(
        {'uuid-' + name: now for name, (now, _before) in cache.items()},
        {'uuid-' + name: before for name, (_now, before) in cache.items()},
        period=checked['period'])
    solution = strategy.execute({}, checked, models={'compute': cluster},
                                metrics=metrics_mod.AuditMetrics([source]))
    return solution, source


moves = strategy_runs.migrations


# 'vip' (priority 1) lost half its cache since 'noisy' (priority 8) took
# three times more; 'calm' (priority 9) did not change.
CACHE = {'vip': (100.0, 200.0), 'noisy': (300.0, 100.0),
         'calm': (50.0, 50.0), 'elsewhere': (80.0, 80.0),
         'quiet': (10.0, 10.0)}


def cluster(**extra_node):
    return c.build(
        [c.node('n1'), c.node('n2', **extra_node), c.node('n3')],
        [server('vip', 'n1', priority=1), server('noisy', 'n1', priority=8),
         server('calm', 'n1', priority=9),
         server('elsewhere', 'n2'), server('quiet', 'n3')])


def test_moves_the_noisy_neighbour_to_the_quietest_node():
    solution, source = run(cluster(), CACHE)
    assert moves(solution) == [('noisy', 'n1', 'n3', 'live')]
    # Two bulk reads: the last period, and twice it.
    assert sorted(q[1] for q in source.queries) == [100.0, 200.0]


def test_below_the_threshold_nothing_moves():
    solution, _source = run(cluster(), CACHE, cache_threshold=60.0)
    assert solution.actions == []


def test_a_more_important_server_is_never_the_noisy_one():
    snapshot = c.build(
        [c.node('n1'), c.node('n2')],
        [server('vip', 'n1', priority=1), server('boss', 'n1', priority=0)])
    cache = {'vip': (100.0, 200.0), 'boss': (300.0, 100.0)}
    assert run(snapshot, cache)[0].actions == []


def test_priorities_compare_as_numbers():
    # "10" is less important than "9": Watcher's text comparison says
    # otherwise.
    snapshot = c.build(
        [c.node('n1'), c.node('n2')],
        [server('nine', 'n1', priority=9), server('ten', 'n1', priority=10)])
    cache = {'nine': (100.0, 200.0), 'ten': (300.0, 100.0)}
    assert moves(run(snapshot, cache)[0]) == [('ten', 'n1', 'n2', 'live')]
    assert nn.priority(c.server('plain', 'n1')) == nn.DEFAULT_PRIORITY


def test_one_server_alone_on_a_node_has_no_neighbour():
    snapshot = c.build([c.node('n1'), c.node('n2')],
                       [server('vip', 'n1', priority=1)])
    assert run(snapshot, {'vip': (100.0, 200.0)})[0].actions == []


@pytest.mark.parametrize('spare', [{'status': 'disabled'},
                                   {'state': 'down'}])
def test_disabled_or_down_nodes_receive_nothing(spare):
    snapshot = cluster()
    snapshot = c.build(
        [c.node('n1'), c.node('n2'), c.node('n3', **spare)],
        list(snapshot.instances.values()))
    assert moves(run(snapshot, CACHE)[0]) == [('noisy', 'n1', 'n2', 'live')]


def test_protected_nodes_receive_nothing():
    solution, _source = run(cluster(), CACHE, protected={'n3'})
    assert moves(solution) == [('noisy', 'n1', 'n2', 'live')]


def test_never_overpacks_a_node():
    snapshot = cluster(memory_mb=2048)    # n2 is full with 'elsewhere'
    solution, _source = run(snapshot, CACHE, protected={'n3'})
    assert solution.actions == []


def test_a_node_with_its_own_noisy_neighbour_receives_nothing():
    snapshot = c.build(
        [c.node('n1'), c.node('n2'), c.node('n3', memory_mb=2048)],
        [server('vip', 'n1', priority=1), server('noisy', 'n1', priority=8),
         server('vip2', 'n2', priority=1),
         server('noisy2', 'n2', priority=8), server('quiet', 'n3')])
    cache = dict(CACHE, vip2=(100.0, 200.0), noisy2=(300.0, 100.0))
    # n3 has no room: neither noisy server may go to the other's node.
    assert run(snapshot, cache)[0].actions == []


def test_every_hurt_node_is_relieved_within_the_budget():
    snapshot = c.build(
        [c.node('n1'), c.node('n2'), c.node('n3'), c.node('n4')],
        [server('vip', 'n1', priority=1), server('noisy', 'n1', priority=8),
         server('vip2', 'n2', priority=3),
         server('noisy2', 'n2', priority=8)])
    cache = {'vip': (100.0, 200.0), 'noisy': (300.0, 100.0),
             'vip2': (100.0, 200.0), 'noisy2': (300.0, 100.0)}
    solution, _source = run(snapshot, cache)
    # Spread over the two quiet nodes, not stacked on one.
    assert sorted(moves(solution)) == [('noisy', 'n1', 'n3', 'live'),
                                       ('noisy2', 'n2', 'n4', 'live')]
    # Watcher moves one per audit; the budget does the same, and the
    # most important hurt server is relieved first.
    solution, _source = run(snapshot, cache, max_migrations=1)
    assert moves(solution) == [('noisy', 'n1', 'n3', 'live')]


def test_hysteresis():
    snapshot = c.build(
        [c.node('n1'), c.node('n2'), c.node('n3', vcpus=17)],
        [server('vip', 'n1', priority=1), server('noisy', 'n1', priority=8),
         server('vip2', 'n3', priority=1),
         server('noisy2', 'n3', priority=8, vcpus=16)])
    cache = dict(CACHE, vip2=(100.0, 200.0), noisy2=(300.0, 100.0))
    # Two hurt servers, one can be relieved (once 'noisy' is on n2,
    # 'noisy2' fits nowhere): 50 %.
    assert len(run(snapshot, cache)[0].actions) == 1
    assert run(snapshot, cache, min_improvement=60)[0].actions == []


@pytest.mark.parametrize('vm_state', ['stopped', 'suspended', 'error'])
def test_a_noisy_server_nova_cannot_live_migrate_stays(vm_state):
    snapshot = c.build(
        [c.node('n1'), c.node('n2')],
        [server('vip', 'n1', priority=1),
         server('noisy', 'n1', priority=8, state=vm_state)])
    cache = {'vip': (100.0, 200.0), 'noisy': (300.0, 100.0)}
    assert run(snapshot, cache)[0].actions == []


def test_a_server_without_data_is_skipped():
    cache = dict(CACHE)
    del cache['noisy']
    assert run(cluster(), cache)[0].actions == []


def test_no_data_at_all_is_a_strategy_error():
    with pytest.raises(base.StrategyError, match='instance_l3_cache_usage'):
        run(cluster(), {})


def test_a_datasource_without_the_metric_fails_the_audit():
    strategy = nn.NoisyNeighbor(goal.NoisyNeighbor)
    checked = parameters_mod.check(strategy.parameters_spec, {})
    with pytest.raises(metrics_mod.MetricUnavailable,
                       match='instance_l3_cache_usage'):
        strategy.execute({}, checked, models={'compute': cluster()},
                         metrics=metrics_mod.AuditMetrics([]))


def test_empty_cluster():
    solution, _source = run(c.build([], []), {})
    assert solution.actions == []


def test_schema_is_watchers():
    spec = nn.NoisyNeighbor.parameters_spec['properties']
    assert spec['cache_threshold']['default'] == 35.0
    assert spec['period']['default'] == 100.0
    assert nn.NoisyNeighbor.goal == 'noisy_neighbor'
    assert nn.NoisyNeighbor.display_name == 'Noisy Neighbor'
