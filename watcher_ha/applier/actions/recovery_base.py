"""What the actions of a host-failure recovery (instance HA) share: the
recovery they belong to, and turning a reserved host's compute service on
or off in Nova."""

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import compute_services

# The input parameters that name the recovery.
PARAMETERS = {'notification_uuid': base.NAME, 'segment_uuid': base.NAME,
              'source_node': base.NAME}


def schema(optional=None, **more):
    """The input schema of a recovery action: PARAMETERS and ``more``
    required, ``optional`` ({name: schema}) not."""
    return base.input_schema(dict(PARAMETERS, **more, **(optional or {})),
                             sorted(PARAMETERS) + sorted(more))


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
        try:
            compute_services.set_enabled(self.nova, host, enabled, reason)
        except compute_services.ServiceError as err:
            raise base.ActionError(str(err))
