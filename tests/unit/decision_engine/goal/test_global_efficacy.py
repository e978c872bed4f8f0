"""Global efficacy from hand-made indicator values, Watcher's way,
including the cases where there is nothing to divide by."""

import pytest

from watcher_ha.decision_engine.goal import hardware_maintenance
from watcher_ha.decision_engine.goal import server_consolidation
from watcher_ha.decision_engine.goal import workload_balancing


def _only(global_efficacy):
    [indicator] = global_efficacy
    return indicator


def test_released_nodes_ratio():
    ratio = _only(server_consolidation.ServerConsolidation.global_efficacy(
        {'compute_nodes_count': 8, 'released_compute_nodes_count': 2,
         'instance_migrations_count': 5}))
    assert ratio == {
        'name': 'released_nodes_ratio',
        'description': 'Ratio of released compute nodes divided by the '
                       'total number of enabled compute nodes.',
        'unit': '%', 'value': 25.0}


@pytest.mark.parametrize('values, expected', [
    ({}, 0),
    ({'compute_nodes_count': 0, 'released_compute_nodes_count': 0,
      'instance_migrations_count': 0}, 0),
    # Nodes but none released: Watcher divides, hence a float.
    ({'compute_nodes_count': 3, 'released_compute_nodes_count': 0,
      'instance_migrations_count': 0}, 0.0),
])
def test_released_nodes_ratio_without_releases(values, expected):
    value = _only(server_consolidation.ServerConsolidation.global_efficacy(
        values))['value']
    assert value == expected and type(value) is type(expected)


def test_migrated_share_of_audited_servers():
    ratio = _only(workload_balancing.WorkloadBalancing.global_efficacy(
        {'instance_migrations_count': 3, 'instances_count': 12,
         'standard_deviation_before_audit': 0.4,
         'standard_deviation_after_audit': 0.1}))
    assert ratio == {
        'name': 'live_migrations_count',
        'description': 'Ratio of migrated virtual machines to audited '
                       'virtual machines',
        'unit': '%', 'value': 25.0}


@pytest.mark.parametrize('values', [
    {},
    {'instance_migrations_count': 0, 'instances_count': 10},
    {'instance_migrations_count': 0, 'instances_count': 0},
    # Inconsistent, and a ZeroDivisionError in Watcher: report 0.
    {'instance_migrations_count': 2},
    {'instance_migrations_count': 2, 'instances_count': 0},
])
def test_migrated_share_without_migrations_or_servers(values):
    value = _only(workload_balancing.WorkloadBalancing.global_efficacy(
        values))['value']
    assert value == 0 and type(value) is int


def _ratios(values):
    goal = hardware_maintenance.HardwareMaintenance
    return {ratio['name']: ratio['value']
            for ratio in goal.global_efficacy(values)}


def test_hardware_maintenance_ratios():
    goal = hardware_maintenance.HardwareMaintenance
    found = goal.global_efficacy({
        'live_migrate_instance_count': 4,
        'planned_live_migrate_instance_count': 3,
        'cold_migrate_instance_count': 2,
        'planned_cold_migrate_instance_count': 2,
        'volume_migrate_count': 5, 'planned_volume_migrate_count': 1,
        'volume_update_count': 0, 'planned_volume_update_count': 0})
    assert [(r['name'], r['unit'], r['value']) for r in found] == [
        ('live_instance_migrate_ratio', '%', 75.0),
        ('cold_instance_migrate_ratio', '%', 100.0),
        ('volume_migrate_ratio', '%', 20.0),
        ('volume_update_ratio', '%', 0)]
    assert found[0]['description'] == (
        'Ratio of actual live migrated instances to planned live migrate '
        'instances.')
    assert found[3]['description'] == (
        'Ratio of actual attached volumes migrated to planned attached '
        'volumes migrate.')


def test_hardware_maintenance_with_nothing_planned_or_to_move():
    assert set(_ratios({}).values()) == {0}
    # Planned moves but nothing counted to move: 0, not a division by 0.
    assert _ratios({'planned_live_migrate_instance_count': 2,
                    'live_migrate_instance_count': 0})[
        'live_instance_migrate_ratio'] == 0
