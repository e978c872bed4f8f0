"""force_host_down: fence a failed compute host in Nova.

Disables the host's nova-compute service (the scheduler sends it nothing
more) and forces it down (compute API 2.53+): Nova then treats it as down
at once, without waiting for its service_down_time, and accepts the
evacuation of its servers. A partitioned host that still runs is not
stopped by this: only power fencing stops it.

It is not reverted: a fenced host stays fenced until an operator has
looked at it (``openstack compute service set --up``).
"""

from novaclient import exceptions as nova_exc

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

DISABLED_REASON = 'watcher_ha: host failure recovery'


class ForceHostDown(nova_base.ComputeService):
    name = 'force_host_down'
    description = ('Disables and forces down the nova-compute service of a '
                   'failed host.')
    schema = {
        'type': 'object',
        'properties': {
            'resource_name': {'type': 'string', 'minLength': 1},
            'disabled_reason': {'type': ['string', 'null'],
                                'maxLength': 255},
        },
        'required': ['resource_name'],
        'additionalProperties': True,
    }

    def execute(self):
        service = self._service()
        reason = (self.input_parameters.get('disabled_reason')
                  or DISABLED_REASON)
        try:
            if service.status != 'disabled':
                self.nova.services.disable_log_reason(service.id, reason)
            if not service.forced_down:
                self.nova.services.force_down(service.id, True)
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to fence %s: %s'
                                   % (self.host, err))

    def post_condition(self):
        service = self._service()
        if service.status != 'disabled' or not service.forced_down:
            raise base.ActionError('the service on %s is %s and %s' % (
                self.host, service.status,
                'forced down' if service.forced_down else 'not forced down'))

    def recover(self, started_at):
        # Fencing twice is harmless: done if it shows.
        service = self._service()
        if service.status == 'disabled' and service.forced_down:
            return base.DONE
        return base.NOT_DONE
