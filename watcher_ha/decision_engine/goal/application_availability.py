from watcher_ha.decision_engine.goal import base
from watcher_ha.decision_engine.goal import efficacy


class ApplicationAvailability(base.Goal):
    """Keep an active/standby application running: when its active
    member fails, its standby takes over the active's data volumes and
    its role, and the failed member is replaced (watcher_ha's own goal,
    doc/source/app_failover.rst)."""
    name = 'application_availability'
    display_name = 'Application Availability'
    watcher_ha_only = True
    efficacy_specification = (
        efficacy.count('volumes_moved_count',
                       'The number of data volumes planned to move to the '
                       'member that becomes active.'),
        efficacy.count('members_replaced_count',
                       'The number of failed members planned to be '
                       'replaced.'),
    )
