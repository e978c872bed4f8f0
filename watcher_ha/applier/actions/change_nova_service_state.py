"""change_nova_service_state: enable or disable a compute service (with a
reason), so that the scheduler sends it new servers or not."""

from novaclient import exceptions as nova_exc

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base

ENABLED = 'enabled'
DISABLED = 'disabled'


class ChangeNovaServiceState(nova_base.ComputeService):
    name = 'change_nova_service_state'
    description = 'Enables or disables the nova-compute service of a node.'
    schema = base.input_schema(
        {'resource_id': base.NAME, 'resource_name': base.NAME,
         'state': {'enum': [ENABLED, DISABLED]},
         'disabled_reason': base.DISABLED_REASON},
        ['resource_name', 'state'])

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        # (status, disabled reason) before the action: what a revert puts
        # back. None until pre_condition reads it.
        self._before = None

    def pre_condition(self):
        service = self._service()
        self._before = (service.status, service.disabled_reason)

    def execute(self):
        self._set(self.input_parameters['state'],
                  self.input_parameters.get('disabled_reason'))

    def _set(self, state, reason=None):
        service = self._service()
        try:
            if state == DISABLED:
                if reason:
                    self.nova.services.disable_log_reason(service.id, reason)
                else:
                    self.nova.services.disable(service.id)
            else:
                self.nova.services.enable(service.id)
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to set %s %s: %s'
                                   % (self.host, state, err))

    def post_condition(self):
        if self._service().status != self.input_parameters['state']:
            raise base.ActionError('the service on %s is not %s'
                                   % (self.host,
                                      self.input_parameters['state']))

    def revert(self):
        """Put the service back as it was before the action (a service an
        operator had disabled stays disabled, with the operator's
        reason); without that record (the plan was taken over from
        another applier), the opposite state."""
        before = self._before
        if before is None:
            self._set(ENABLED if self.input_parameters['state'] == DISABLED
                      else DISABLED, 'reverted by watcher_ha')
            return
        status, reason = before
        service = self._service()
        if (service.status, service.disabled_reason) != before:
            self._set(status, reason)

    def recover(self, started_at):
        # Setting a state twice is harmless; done if it shows.
        if self._service().status == self.input_parameters['state']:
            return base.DONE
        return base.NOT_DONE
