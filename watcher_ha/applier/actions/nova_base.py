"""What the actions acting on Nova share: a client, and waiting for a
server or service to settle (polling with tenacity, ended early by an
abort)."""

import tenacity
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.common import clients
from watcher_ha.common import compute_services

CONF = cfg.CONF


class NovaAction(base.Action):

    def __init__(self, input_parameters, context=None, fence=None):
        super().__init__(input_parameters, context, fence)
        self._nova = None

    @property
    def nova(self):
        """A Nova client whose every request that may change something
        passes this action's fence first (read when called: a rollback
        gives the action a new fence)."""
        if self._nova is None:
            reason = clients.configured(CONF)
            if reason:
                raise base.ActionError(reason)
            self._nova = clients.nova(CONF,
                                      before_write=lambda: self.fence())
        return self._nova

    def server(self, uuid):
        try:
            return self.nova.servers.get(uuid)
        except nova_exc.NotFound:
            raise base.ActionError('server %s does not exist' % uuid)

    def wait_for(self, settled, timeout, what):
        """Poll ``settled()`` until it returns a true value, which is
        returned; ActionError after ``timeout`` seconds or on abort."""
        retrying = tenacity.Retrying(
            stop=(tenacity.stop_after_delay(timeout)
                  | tenacity.stop_when_event_set(self._aborted)),
            wait=tenacity.wait_fixed(CONF.watcher_applier.poll_interval),
            retry=tenacity.retry_if_result(lambda value: not value),
            # Out of time: hand back the last (false) answer.
            retry_error_callback=lambda state: state.outcome.result())
        result = retrying(settled)
        if result:
            return result
        if self.aborted:
            raise base.ActionError('aborted while waiting for %s' % what)
        raise base.ActionError('%s did not happen within %s s'
                               % (what, timeout))


class ServerAction(NovaAction):
    """An action on one server (``resource_id``), which its started plan
    holds."""

    @classmethod
    def resources(cls, input_parameters):
        return {(base.SERVER, input_parameters['resource_id'])}

    @property
    def uuid(self):
        return self.input_parameters['resource_id']

    def server_or_skip(self):
        """The server; ActionSkipped if it is gone (nothing to act on)."""
        try:
            return self.nova.servers.get(self.uuid)
        except nova_exc.NotFound:
            raise base.ActionSkipped('server %s does not exist any more'
                                     % self.uuid)


class ServerMove(NovaAction):
    """An action that moves one server (``resource_id``) off its
    ``source_node``, to ``destination_node`` if given."""

    # Whether the started plan holds the source node too (a failed host
    # being evacuated is no resource another plan could use).
    holds_source = True

    @classmethod
    def resources(cls, input_parameters):
        found = {(base.SERVER, input_parameters['resource_id'])}
        if cls.holds_source:
            found.add((base.COMPUTE_NODE, input_parameters['source_node']))
        if input_parameters.get('destination_node'):
            found.add((base.COMPUTE_NODE,
                       input_parameters['destination_node']))
        return found

    @property
    def uuid(self):
        return self.input_parameters['resource_id']

    @property
    def source(self):
        return self.input_parameters['source_node']

    @property
    def destination(self):
        return self.input_parameters.get('destination_node')


class ComputeService(base.OnHost, NovaAction):
    """An action on the nova-compute service of ``resource_name``."""

    def _service(self):
        try:
            return compute_services.find(self.nova, self.host)
        except compute_services.ServiceError as err:
            raise base.ActionError(str(err))


def host_of(server):
    return getattr(server, 'OS-EXT-SRV-ATTR:host', None)


def task_of(server):
    return getattr(server, 'OS-EXT-STS:task_state', None)
