"""settle_recovery: the last action of a host-failure recovery.

The failed host is put on maintenance in its segment: it stays there
until an operator has repaired it and clears it. The servers the
recovery does not evacuate (common/instance_ha/failures.not_evacuated)
get a move ignored, saying why. The action fails, naming
them, if some of the failed host's servers were not moved, or if Nova
still has there servers the recovery should have moved and did not know
of: the recovery keeps the reserved hosts it holds for its next attempt.
Otherwise the reserved hosts it held and rebuilt servers on become
normal hosts, and those it held and left empty go back to the
segment's pool, disabled again in Nova (cloud/reserved_pool.py).
"""

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.applier.actions import recovery_base
from watcher_ha.cloud import compute_services
from watcher_ha.cloud import reserved_pool
from watcher_ha.common.instance_ha import failures
from watcher_ha.db import failover_segments
from watcher_ha.db import vmoves


class SettleRecovery(recovery_base.RecoveryAction):
    name = 'settle_recovery'
    description = ('Returns the reserved hosts a recovery did not use, and '
                   'puts the failed host on maintenance.')
    schema = recovery_base.schema(
        optional={'evacuate_all_instances': {'type': 'boolean'},
                  # {server: why} of those the plan does not move.
                  'left_alone': {'type': 'object',
                                 'additionalProperties': {
                                     'type': 'string'}},
                  # {server: why} of those left where they are by rule.
                  'not_evacuated': {'type': 'object',
                                    'additionalProperties': {
                                        'type': 'string'}}})

    def execute(self):
        notification = self.notification
        failover_segments.set_maintenance(
            self.context, self.input_parameters['segment_uuid'],
            self.input_parameters['source_node'])
        ignored = self.input_parameters.get('not_evacuated') or {}
        if ignored:
            # Shown with the recovery's steps (recovery_workflow_details).
            self.outcome = 'left on %s: %s' % (
                self.input_parameters['source_node'],
                '; '.join(why for _, why in sorted(ignored.items())))
        for key, status in (('left_alone', vmoves.FAILED),
                            ('not_evacuated', vmoves.IGNORED)):
            for server, why in sorted(
                    (self.input_parameters.get(key) or {}).items()):
                self.fence()
                vmoves.record(
                    self.context, notification, server,
                    unless=(vmoves.SUCCEEDED,), status=status,
                    source_host=self.input_parameters['source_node'],
                    message=why)
        moves = vmoves.of(self.context, notification)
        left = sorted(uuid for uuid, move in moves.items()
                      if move['status'] not in (vmoves.SUCCEEDED,
                                                vmoves.IGNORED))
        left += self._unknown_to_the_plan(moves)
        if left:
            # The holds stay: the next attempt moves these onto the
            # hosts already held, which have room for them, rather than
            # onto more reserved hosts (after the last attempt, the
            # engine gives them back).
            raise base.ActionError(
                'server(s) %s were not moved off %s' % (
                    ', '.join(left), self.input_parameters['source_node']))
        try:
            reserved_pool.give_back(self.context, self.nova, notification,
                             self.fence)
        except compute_services.ServiceError as err:
            raise base.ActionError(str(err))

    def _unknown_to_the_plan(self, moves):
        """Servers Nova still has on the failed host, that the recovery
        should have moved and had no move for (the data model it was
        planned on missed them): the next attempt moves them."""
        everyone = self.input_parameters.get('evacuate_all_instances')
        return sorted(
            server.id for server in self.nova.servers.list(
                search_opts={'host': self.input_parameters['source_node'],
                             'all_tenants': 1}, limit=-1)
            if server.id not in moves
            and not failures.not_evacuated(server.id,
                                           nova_base.vm_state(server))
            and (everyone or failures.ha_enabled(server.metadata)))

    def recover(self, started_at):
        # Each step finds what is done and does the rest.
        return base.NOT_DONE
