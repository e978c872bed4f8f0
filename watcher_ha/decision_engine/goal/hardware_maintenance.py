from watcher_ha.decision_engine.goal import base
from watcher_ha.decision_engine.goal import efficacy


class HardwareMaintenance(base.Goal):
    """Move servers and volumes off compute nodes and storage pools under
    maintenance.

    For each kind of move a strategy reports two counts: the resources
    that need moving (the "actually ..." indicators) and the moves it
    planned.
    """
    name = 'hardware_maintenance'
    display_name = 'Hardware Maintenance'
    efficacy_specification = (
        efficacy.count('live_migrate_instance_count',
                       'The number of instances actually live migrated.'),
        efficacy.count('planned_live_migrate_instance_count',
                       'The number of instances planned to live migrate.'),
        efficacy.count('cold_migrate_instance_count',
                       'The number of instances actually cold migrated.'),
        efficacy.count('planned_cold_migrate_instance_count',
                       'The number of instances planned to cold migrate.'),
        efficacy.count('volume_migrate_count',
                       'The number of detached volumes actually migrated.'),
        efficacy.count('planned_volume_migrate_count',
                       'The number of detached volumes planned to migrate.'),
        efficacy.count('volume_update_count',
                       'The number of attached volumes actually migrated.'),
        efficacy.count('planned_volume_update_count',
                       'The number of attached volumes planned to migrate.'),
    )

    # (global indicator, its description, planned count, count to move)
    _RATIOS = (
        ('live_instance_migrate_ratio',
         'Ratio of actual live migrated instances to planned live migrate '
         'instances.',
         'planned_live_migrate_instance_count', 'live_migrate_instance_count'),
        ('cold_instance_migrate_ratio',
         'Ratio of actual cold migrated instances to planned cold migrate '
         'instances.',
         'planned_cold_migrate_instance_count', 'cold_migrate_instance_count'),
        ('volume_migrate_ratio',
         'Ratio of actual detached volumes migrated to planned detached '
         'volumes migrate.',
         'planned_volume_migrate_count', 'volume_migrate_count'),
        ('volume_update_ratio',
         'Ratio of actual attached volumes migrated to planned attached '
         'volumes migrate.',
         'planned_volume_update_count', 'volume_update_count'),
    )

    @classmethod
    def global_efficacy(cls, indicator_values):
        # Despite the descriptions, Watcher divides the planned count by
        # the count to move (the share of the work the plan covers), and
        # only when something is planned.
        ratios = []
        for name, description, planned_name, to_move_name in cls._RATIOS:
            planned = indicator_values.get(planned_name, 0)
            value = 0
            if planned > 0:
                value = efficacy.percent(
                    planned, indicator_values.get(to_move_name, 0))
            ratios.append(efficacy.ratio(name, description, value))
        return ratios
