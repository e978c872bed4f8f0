"""outlet_temperature on hand-made clusters with static outlet
temperatures."""

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.decision_engine.datasources import metrics as metrics_mod
from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import outlet_temperature

def run(cluster, temperatures, protected=(), **parameters):
    values = ({} if temperatures is None
              else {'host_outlet_temp': temperatures})
    return strategy_runs.run(outlet_temperature.OutletTemperature, cluster,
                             static_metrics.audit_metrics(values), protected,
                             **parameters)


moves = strategy_runs.migrations


def cluster(*extra_nodes, servers=None):
    return c.build(
        [c.node('hot1', vcpus=8, memory_mb=16384),
         c.node('hot2', vcpus=8, memory_mb=16384),
         c.node('cool1', vcpus=8, memory_mb=16384),
         c.node('cool2', vcpus=8, memory_mb=16384), *extra_nodes],
        servers if servers is not None else [
            c.server('small', 'hot1', vcpus=1),
            c.server('big', 'hot1', vcpus=4),
            c.server('h2', 'hot2', vcpus=2),
            c.server('stays', 'cool1', vcpus=2)])


TEMPERATURES = {'hot1': 40.0, 'hot2': 36.0, 'cool1': 25.0, 'cool2': 30.0}


def test_each_hot_host_gives_its_largest_server_to_the_coolest():
    found = moves(run(cluster(), TEMPERATURES))
    # hot1 is the hottest; each cool host receives one before any
    # receives a second.
    assert found == [('big', 'hot1', 'cool1', 'live'),
                     ('h2', 'hot2', 'cool2', 'live')]


def test_the_threshold_is_inclusive_and_a_parameter():
    assert moves(run(cluster(), TEMPERATURES, threshold=40.0)) == [
        ('big', 'hot1', 'cool1', 'live')]
    assert moves(run(cluster(), TEMPERATURES, threshold=41.0)) == []


def test_max_migrations_one_is_watchers_single_move():
    assert moves(run(cluster(), TEMPERATURES, max_migrations=1)) == [
        ('big', 'hot1', 'cool1', 'live')]


def test_only_active_servers_move_and_a_server_too_big_is_skipped():
    servers = [c.server('stopped', 'hot1', vcpus=1, state='stopped'),
               c.server('huge', 'hot1', vcpus=4, memory_mb=20000),
               c.server('fits', 'hot1', vcpus=2)]
    found = moves(run(cluster(servers=servers),
                      {'hot1': 40.0, 'cool1': 20.0}))
    assert found == [('fits', 'hot1', 'cool1', 'live')]


def test_disabled_down_protected_and_unmeasured_hosts_receive_nothing():
    extra = [c.node('off', status='disabled'), c.node('down', state='down'),
             c.node('kept'), c.node('dark')]
    temperatures = dict(TEMPERATURES, off=10.0, down=10.0, kept=10.0)
    found = moves(run(cluster(*extra), temperatures,
                      protected={'kept', 'cool1'}))
    assert {destination for _, _, destination, _ in found} == {'cool2'}


def test_nothing_over_packs_a_host():
    servers = [c.server('a', 'hot1', vcpus=4), c.server('b', 'hot2',
                                                        vcpus=4)]
    nodes = [c.node('hot1'), c.node('hot2'),
             c.node('cool', vcpus=5, memory_mb=16384)]
    found = moves(run(c.build(nodes, servers),
                      {'hot1': 40.0, 'hot2': 39.0, 'cool': 20.0}))
    assert found == [('a', 'hot1', 'cool', 'live')]


def test_a_pinned_server_stays_in_its_zone():
    nodes = [c.node('hot', availability_zone='az1'),
             c.node('far', availability_zone='az2'),
             c.node('near', availability_zone='az1')]
    servers = [c.server('p', 'hot', vcpus=4, pinned_availability_zone='az1')]
    found = moves(run(c.build(nodes, servers),
                      {'hot': 40.0, 'far': 10.0, 'near': 30.0}))
    assert found == [('p', 'hot', 'near', 'live')]


def test_hysteresis_weighs_the_load_taken_off_hot_hosts():
    # Hot hosts carry 1 + 4 + 2 = 7 vCPUs; the plan takes 6 off (86 %).
    assert run(cluster(), TEMPERATURES, min_improvement=90).actions == []
    assert len(run(cluster(), TEMPERATURES,
                   min_improvement=80).actions) == 2


def test_per_host_and_per_project_budgets():
    servers = [c.server('a', 'hot1', vcpus=2, project_id='p1'),
               c.server('b', 'hot2', vcpus=2, project_id='p1')]
    found = moves(run(cluster(servers=servers), TEMPERATURES,
                      max_migrations_per_project=1))
    assert found == [('a', 'hot1', 'cool1', 'live')]


def test_no_hot_host_no_cool_host_or_empty_cluster_gives_no_plan():
    cool = {h: 20.0 for h in TEMPERATURES}
    assert run(cluster(), cool).actions == []
    hot = {h: 50.0 for h in TEMPERATURES}
    assert run(cluster(), hot).actions == []
    assert run(c.build([], []), {}).actions == []
    one = c.build([c.node('only')], [c.server('a', 'only')])
    assert run(one, {'only': 50.0}).actions == []


def test_no_data_for_any_host_fails_saying_which_metric():
    with pytest.raises(base.StrategyError,
                       match='no compute node has host_outlet_temp data'):
        run(cluster(), {})
    with pytest.raises(metrics_mod.MetricUnavailable,
                       match='host_outlet_temp'):
        run(cluster(), None)


def test_reads_the_metric_once_with_the_audit_window():
    source = static_metrics.StaticDatasource({'host_outlet_temp':
                                              TEMPERATURES})
    strategy_runs.run(outlet_temperature.OutletTemperature, cluster(),
                      metrics_mod.AuditMetrics([source]), period=600)
    assert source.queries == [('host_outlet_temp', 600, 'mean', 300)]


def test_parameters_are_watchers_plus_the_budget():
    spec = outlet_temperature.OutletTemperature.parameters_spec
    assert spec['properties']['threshold'] == {
        'description': 'temperature threshold for migration',
        'type': 'number', 'default': 35.0}
    assert spec['properties']['period']['default'] == 30
    assert spec['properties']['granularity']['default'] == 300
    assert 'max_migrations' in spec['properties']
