"""settle_recovery: the last action of a host-failure recovery.

The reserved hosts the recovery claimed and rebuilt servers on become
normal hosts; those it claimed and did not use go back to the segment's
pool, disabled again in Nova (a reserved host is kept empty). The failed
host is put on maintenance in its segment: it stays there until an
operator has repaired it and clears it. The action fails, naming them, if
some of the failed host's servers were not moved.
"""

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import recovery_base
from watcher_ha.db import failover_segments
from watcher_ha.db import reserved_hosts
from watcher_ha.db import vmoves

RESERVED_REASON = 'watcher_ha: reserved host of a failover segment'


class SettleRecovery(recovery_base.RecoveryAction):
    name = 'settle_recovery'
    description = ('Returns the reserved hosts a recovery did not use, and '
                   'puts the failed host on maintenance.')
    schema = recovery_base.schema()

    def execute(self):
        notification = self.notification
        moves = vmoves.of(self.context, notification)
        used = {move['dest_host'] for move in moves.values()
                if move['status'] == vmoves.SUCCEEDED}
        unused = [host for host in reserved_hosts.held_by(
            self.context, notification) if host not in used]
        for host in unused:
            self.set_service(host, enabled=False, reason=RESERVED_REASON)
        self.fence()
        reserved_hosts.release(self.context, notification, unused)
        reserved_hosts.settle(self.context, notification)
        failover_segments.set_maintenance(
            self.context, self.input_parameters['segment_uuid'],
            self.input_parameters['source_node'])
        left = sorted(uuid for uuid, move in moves.items()
                      if move['status'] != vmoves.SUCCEEDED)
        if left:
            raise base.ActionError(
                'server(s) %s were not moved off %s' % (
                    ', '.join(left), self.input_parameters['source_node']))

    def recover(self, started_at):
        # Each step finds what is done and does the rest.
        return base.NOT_DONE
