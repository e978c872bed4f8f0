"""Every Watcher 17 goal is installed, with the indicators strategies
report against it; and watcher_ha's own goals."""

import pytest

from watcher_ha.common import plugins
from watcher_ha.decision_engine.goal import base

WATCHER17_GOALS = {
    'airflow_optimization': 'Airflow Optimization',
    'cluster_maintaining': 'Cluster Maintaining',
    'dummy': 'Dummy goal',
    'hardware_maintenance': 'Hardware Maintenance',
    'noisy_neighbor': 'Noisy Neighbor',
    'saving_energy': 'Saving Energy',
    'server_consolidation': 'Server Consolidation',
    'thermal_optimization': 'Thermal Optimization',
    'unclassified': 'Unclassified',
    'workload_balancing': 'Workload Balancing',
}

COUNT = {'type': 'integer', 'minimum': 0}
NUMBER = {'type': 'number', 'minimum': 0}

# (name, schema, required) per goal, in Watcher's order.
INDICATORS = {
    'server_consolidation': [
        ('compute_nodes_count', COUNT, True),
        ('released_compute_nodes_count', COUNT, True),
        ('instance_migrations_count', COUNT, True)],
    'workload_balancing': [
        ('instance_migrations_count', COUNT, True),
        ('instances_count', COUNT, False),
        ('standard_deviation_after_audit', NUMBER, False),
        ('standard_deviation_before_audit', NUMBER, False)],
    'hardware_maintenance': [
        (name, COUNT, True) for name in (
            'live_migrate_instance_count',
            'planned_live_migrate_instance_count',
            'cold_migrate_instance_count',
            'planned_cold_migrate_instance_count',
            'volume_migrate_count', 'planned_volume_migrate_count',
            'volume_update_count', 'planned_volume_update_count')],
}


# watcher_ha's own goals, which Watcher does not have.
OWN_GOALS = {'application_availability': 'Application Availability'}
# Goals of Watcher's approved specs that Watcher 17 does not have.
SPEC_GOALS = {'workload_optimization': ('Workload Optimization',
                                        'preemptible-instances')}


@pytest.fixture(scope='module')
def installed():
    return plugins.load_classes(plugins.GOALS)


@pytest.fixture(scope='module')
def goals(installed):
    return {name: goal for name, goal in installed.items()
            if not (goal.watcher_ha_only or goal.watcher_spec)}


def test_our_own_goals_say_so(installed):
    assert {name: goal.display_name for name, goal in installed.items()
            if goal.watcher_ha_only} == OWN_GOALS


def test_goals_of_watchers_specs_say_which(installed):
    assert {name: (goal.display_name, goal.watcher_spec)
            for name, goal in installed.items()
            if goal.watcher_spec} == SPEC_GOALS
    assert not any(goal.watcher_ha_only for goal in installed.values()
                   if goal.watcher_spec)


def test_every_watcher17_goal_is_installed_in_name_order(goals):
    assert list(goals) == sorted(WATCHER17_GOALS)
    assert {name: goal.display_name for name, goal in goals.items()} == \
        WATCHER17_GOALS
    assert all(goal.name == name for name, goal in goals.items())


@pytest.mark.parametrize('name', sorted(WATCHER17_GOALS))
def test_indicators(goals, name):
    specification = goals[name].efficacy_specification
    assert [(spec.name, spec.schema, spec.required)
            for spec in specification] == INDICATORS.get(name, [])
    for spec in specification:
        assert isinstance(spec, base.IndicatorSpec)
        assert spec.unit is None
        assert spec.description.endswith('.')


@pytest.mark.parametrize('name', sorted(set(WATCHER17_GOALS) -
                                        set(INDICATORS)))
def test_goals_without_indicators_have_no_global_efficacy(goals, name):
    assert goals[name].global_efficacy({}) == []


def test_a_value_off_its_schema_is_refused(goals):
    consolidation = goals['server_consolidation']
    consolidation.check_indicator('compute_nodes_count', 0)
    for wrong in (-1, 1.5, '3', None, True):
        with pytest.raises(ValueError, match='compute_nodes_count'):
            consolidation.check_indicator('compute_nodes_count', wrong)
    goals['workload_balancing'].check_indicator(
        'standard_deviation_after_audit', 0.25)
    with pytest.raises(ValueError, match='no efficacy indicator'):
        consolidation.check_indicator('instances_count', 3)


def test_missing_required_indicators_are_named(goals):
    balancing = goals['workload_balancing']
    assert balancing.missing_indicators({}) == ['instance_migrations_count']
    assert balancing.missing_indicators(
        {'instance_migrations_count': 0}) == []
    assert goals['dummy'].missing_indicators({}) == []
