"""uniform_airflow on hand-made clusters with static airflow, inlet
temperature and power."""

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import uniform_airflow


AIRFLOW = {'windy': 600.0, 'breezy': 450.0, 'calm1': 100.0, 'calm2': 200.0}
# windy and breezy are hot and draw power: their servers cause the airflow.
BUSY = {'host_inlet_temp': {'windy': 30.0, 'breezy': 30.0},
        'host_power': {'windy': 400.0, 'breezy': 400.0}}
# windy blows hard while cool and idle: a hardware issue.
BROKEN_FAN = {'host_inlet_temp': {'windy': 20.0, 'breezy': 30.0},
              'host_power': {'windy': 100.0, 'breezy': 400.0}}


def run(cluster, values, protected=(), **parameters):
    return strategy_runs.run(uniform_airflow.UniformAirflow, cluster,
                             static_metrics.audit_metrics(values), protected,
                             **parameters)


moves = strategy_runs.migrations


def cluster(servers=None, *extra_nodes):
    return c.build(
        [c.node('windy', vcpus=8, memory_mb=16384),
         c.node('breezy', vcpus=8, memory_mb=16384),
         c.node('calm1', vcpus=8, memory_mb=16384),
         c.node('calm2', vcpus=8, memory_mb=16384), *extra_nodes],
        servers if servers is not None else [
            c.server('w1', 'windy', vcpus=1),
            c.server('w2', 'windy', vcpus=3),
            c.server('w3', 'windy', vcpus=2, state='stopped'),
            c.server('b1', 'breezy', vcpus=2),
            c.server('stays', 'calm1', vcpus=2)])


def test_each_overloaded_host_gives_one_active_server():
    found = moves(run(cluster(), dict(BUSY, host_airflow=AIRFLOW)))
    assert found == [('w2', 'windy', 'calm1', 'live'),
                     ('b1', 'breezy', 'calm2', 'live')]


def test_a_hardware_issue_empties_the_host():
    found = moves(run(cluster(), dict(BROKEN_FAN, host_airflow=AIRFLOW)))
    # Largest first, spread over the calm hosts (each once, then the
    # calmest again); the stopped one cold.
    assert found == [('w2', 'windy', 'calm1', 'live'),
                     ('w3', 'windy', 'calm2', 'cold'),
                     ('w1', 'windy', 'calm1', 'live'),
                     ('b1', 'breezy', 'calm1', 'live')]


def test_an_evacuation_that_does_not_fit_falls_back_to_one_server():
    servers = [c.server('w1', 'windy', vcpus=1),
               c.server('w2', 'windy', vcpus=6, memory_mb=14000)]
    nodes = [c.node('windy'), c.node('calm1', vcpus=8, memory_mb=16384)]
    found = moves(run(c.build(nodes, servers), {
        'host_airflow': {'windy': 600.0, 'calm1': 100.0},
        'host_inlet_temp': {'windy': 20.0},
        'host_power': {'windy': 100.0}}, threshold_power=350.0))
    # Both together need 7 vCPUs and 16048 MB: they fit, so both go.
    assert [m[0] for m in found] == ['w2', 'w1']
    tight = [c.node('windy'), c.node('calm1', vcpus=6, memory_mb=16384)]
    found = moves(run(c.build(tight, servers), {
        'host_airflow': {'windy': 600.0, 'calm1': 100.0},
        'host_inlet_temp': {'windy': 20.0},
        'host_power': {'windy': 100.0}}))
    assert found == [('w2', 'windy', 'calm1', 'live')]


def test_unknown_inlet_or_power_is_no_hardware_issue():
    values = {'host_airflow': AIRFLOW, 'host_inlet_temp': {'windy': 20.0},
              'host_power': {}}
    found = moves(run(cluster(), values))
    assert [m[0] for m in found] == ['w2', 'b1']


def test_the_budget_can_stop_an_evacuation_part_way():
    found = moves(run(cluster(), dict(BROKEN_FAN, host_airflow=AIRFLOW),
                      max_migrations=2))
    assert [m[0] for m in found] == ['w2', 'w3']
    found = moves(run(cluster(), dict(BROKEN_FAN, host_airflow=AIRFLOW),
                      max_migrations_per_host=1))
    assert [m[0] for m in found] == ['w2', 'b1']


def test_disabled_protected_and_unmeasured_hosts_receive_nothing():
    extra = [c.node('off', status='disabled'), c.node('kept'),
             c.node('dark')]
    airflow = dict(AIRFLOW, off=10.0, kept=10.0)
    found = moves(run(cluster(None, *extra),
                      dict(BUSY, host_airflow=airflow),
                      protected={'kept', 'calm1'}))
    assert {m[2] for m in found} == {'calm2'}


def test_hysteresis_weighs_the_load_taken_off_overloaded_hosts():
    # Overloaded hosts carry 1 + 3 + 2 + 2 = 8 vCPUs; one server each
    # takes 5 off (62.5 %).
    values = dict(BUSY, host_airflow=AIRFLOW)
    assert run(cluster(), values, min_improvement=70).actions == []
    assert len(run(cluster(), values, min_improvement=60).actions) == 2


def test_nothing_to_do_and_edge_clusters():
    calm = {h: 100.0 for h in AIRFLOW}
    assert run(cluster(), dict(BUSY, host_airflow=calm)).actions == []
    windy = {h: 900.0 for h in AIRFLOW}
    assert run(cluster(), dict(BUSY, host_airflow=windy)).actions == []
    assert run(c.build([], []), {}).actions == []


def test_missing_metrics_fail_clearly():
    with pytest.raises(base.StrategyError,
                       match='no compute node has host_airflow data'):
        run(cluster(), dict(BUSY, host_airflow={}))
    with pytest.raises(metrics_mod.MetricUnavailable, match='host_power'):
        run(cluster(), {'host_airflow': AIRFLOW, 'host_inlet_temp': {}})


def test_each_metric_is_read_once_for_all_hosts():
    source = static_metrics.StaticDatasource(dict(BUSY,
                                                  host_airflow=AIRFLOW))
    strategy_runs.run(uniform_airflow.UniformAirflow, cluster(),
                      metrics_mod.AuditMetrics([source]), period=310)
    assert sorted(source.queries) == [
        ('host_airflow', 310, 'mean', 300),
        ('host_inlet_temp', 310, 'mean', 300),
        ('host_power', 310, 'mean', 300)]


def test_parameters_are_watchers_plus_the_budget():
    spec = uniform_airflow.UniformAirflow.parameters_spec['properties']
    assert {name: spec[name]['default'] for name in (
        'threshold_airflow', 'threshold_inlet_t', 'threshold_power',
        'period', 'granularity')} == {
        'threshold_airflow': 400.0, 'threshold_inlet_t': 28.0,
        'threshold_power': 350.0, 'period': 300, 'granularity': 300}
    assert 'min_improvement' in spec
