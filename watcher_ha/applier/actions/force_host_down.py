"""force_host_down: fence a failed compute host in Nova.

Forces the host's nova-compute service down (compute API 2.53+): Nova
then treats it as down at once, without waiting for its
service_down_time, and accepts the evacuation of its servers; then
disables it (the scheduler sends it nothing more). A partitioned host
that still runs is not stopped by this: only power fencing stops it.

Down first, because Nova answers a status written while it still counts
the service up only once it has called the host's nova-compute to sync
the COMPUTE_STATUS_DISABLED trait of its provider: a dead compute never
answers, and the request waits for Nova's rpc_response_timeout (60 s).
A host reported at once after it failed is still up for Nova for its
service_down_time (60 s). Forced down, the service is down, and Nova
makes no call (the trait is synced when the compute starts again).

It is not reverted: a fenced host stays fenced until an operator has
looked at it (``openstack compute service set --up``).
"""

from novaclient import exceptions as nova_exc

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

DISABLED_REASON = 'watcher_ha: host failure recovery'


class ForceHostDown(base.HostFencing, nova_base.ComputeService):
    name = 'force_host_down'
    description = ('Forces down and disables the nova-compute service of a '
                   'failed host.')
    schema = base.input_schema(
        {'resource_name': base.NAME,
         'disabled_reason': base.DISABLED_REASON,
         **base.HostFencing.HOLD_HOST},
        ['resource_name'])

    def execute(self):
        service = self._service()
        reason = (self.input_parameters.get('disabled_reason')
                  or DISABLED_REASON)
        try:
            if not service.forced_down:
                self.nova.services.force_down(service.id, True)
            if service.status != 'disabled':
                self.nova.services.disable_log_reason(service.id, reason)
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
