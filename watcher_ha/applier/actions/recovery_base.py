"""What the actions of a host-failure recovery (instance HA) share: the
recovery they belong to, and turning a reserved host's compute service on
or off in Nova."""

from novaclient import exceptions as nova_exc

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

# The input parameters that name the recovery.
PARAMETERS = {
    'notification_uuid': {'type': 'string', 'minLength': 1},
    'segment_uuid': {'type': 'string', 'minLength': 1},
    'source_node': {'type': 'string', 'minLength': 1},
}


def schema(**more):
    return {'type': 'object',
            'properties': dict(PARAMETERS, **more),
            'required': sorted(PARAMETERS) + sorted(more),
            'additionalProperties': True}


class RecoveryAction(nova_base.NovaAction):

    @classmethod
    def resources(cls, input_parameters):
        # Its hosts are chosen, and held, under the segment's lock.
        return set()

    @property
    def notification(self):
        return self.input_parameters['notification_uuid']

    def set_service(self, host, enabled, reason=None):
        """Enable or disable (with ``reason``) the compute service of
        ``host``, if it is not so already."""
        service = nova_base.compute_service(self.nova, host)
        if service.status == ('enabled' if enabled else 'disabled'):
            return
        try:
            if enabled:
                self.nova.services.enable(service.id)
            else:
                self.nova.services.disable_log_reason(service.id, reason)
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to %s %s: %s' % (
                'enable' if enabled else 'disable', host, err))
