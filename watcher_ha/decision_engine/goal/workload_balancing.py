from watcher_ha.decision_engine.goal import base
from watcher_ha.decision_engine.goal import efficacy


class WorkloadBalancing(base.Goal):
    """Spread the load evenly over the compute nodes. Strategies report
    the standard deviation of the load before and after their plan."""
    name = 'workload_balancing'
    display_name = 'Workload Balancing'
    efficacy_specification = (
        efficacy.INSTANCE_MIGRATIONS_COUNT,
        efficacy.INSTANCES_COUNT,
        efficacy.STANDARD_DEVIATION_AFTER_AUDIT,
        efficacy.STANDARD_DEVIATION_BEFORE_AUDIT,
    )

    @classmethod
    def global_efficacy(cls, indicator_values):
        # Watcher names this ratio "live_migrations_count", and computes
        # it only when something migrates: 0 migrations give an integer 0.
        migrations = indicator_values.get('instance_migrations_count', 0)
        migrated = 0
        if migrations > 0:
            migrated = efficacy.percent(
                migrations, indicator_values.get('instances_count', 0))
        return [efficacy.ratio(
            'live_migrations_count',
            'Ratio of migrated virtual machines to audited virtual machines',
            migrated)]
