"""set_host_maintenance: put a host of a failover segment on maintenance
(the recovery of a PROCESS notification, as Masakari's).

Reports of the host's failures are then recorded as ignored, and no
recovery touches it, until an operator clears ``on_maintenance``. The
write passes the action's fence first, as a call to the cloud would.
"""

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import recovery_base
from watcher_ha.db import failover_segments


class SetHostMaintenance(recovery_base.RecoveryAction):
    name = 'set_host_maintenance'
    description = 'Puts a host of a failover segment on maintenance.'
    schema = recovery_base.schema()

    def execute(self):
        self.fence()
        failover_segments.set_maintenance(
            self.context, self.input_parameters['segment_uuid'],
            self.input_parameters['source_node'])

    def recover(self, started_at):
        # Setting it again is harmless.
        return base.NOT_DONE
