"""Which work recovers from a failure, and so may not wait behind the
rest: the plans of instance HA's recoveries (a failed host's servers
evacuated, a failed guest restarted, a host whose process stopped taken
out of service) and of application failovers. An applier runs them in a
lane of their own ([watcher_applier] max_recovery_plans): a host's
evacuation must not queue behind two optimisation plans live-migrating
for an hour, nor fifty applications' failovers behind each other two at
a time."""

from watcher_ha.common.app_failover import members

# The strategies whose plans are recoveries: instance HA's (one per
# notification type, db/recoveries.py) and application failover's. Their
# plans are also carried on by whoever takes them over, whatever
# [watcher_applier] recovery says (applier/takeover.py).
RECOVERY_STRATEGIES = frozenset({'host_recovery', 'instance_recovery',
                                 'process_recovery', members.STRATEGY})
