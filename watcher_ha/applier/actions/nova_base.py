"""What the actions acting on Nova share: a client, and waiting for a
server or service to settle (polling with tenacity, ended early by an
abort)."""

import tenacity
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.common import holds
from watcher_ha.cloud import clients
from watcher_ha.cloud import compute_services

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


# A server's id, as Watcher's action schemas spell it.
UUID_PATTERN = ('^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-'
                '[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$')

# The parameters of an action on one server that needs nothing more: the
# server's uuid, and the name a strategy may add for the reader.
SERVER_UUID = {'type': 'string', 'pattern': UUID_PATTERN}
ONE_SERVER_SCHEMA = base.input_schema(
    {'resource_id': SERVER_UUID, 'resource_name': base.NAME_OR_NULL},
    ['resource_id'], more=False)


def vm_state(server):
    return getattr(server, 'OS-EXT-STS:vm_state', None)


class ServerAction(NovaAction):
    """An action on one server (``resource_id``), which its started plan
    holds."""

    resources = base.holding(holds.SERVER, 'resource_id')

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

    def stop_server(self):
        """Have Nova stop the server, and wait until it is stopped."""
        try:
            self.nova.servers.stop(self.uuid)
        except nova_exc.Conflict as err:
            # Stopping already (Nova's power sync saw the guest die), or
            # stopped meanwhile: what it ends in decides.
            now = self.server(self.uuid)
            if task_of(now) is None and vm_state(now) != 'stopped':
                raise base.ActionError('Nova refused to stop server %s: %s'
                                       % (self.uuid, err))
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to stop server %s: %s'
                                   % (self.uuid, err))
        self.wait_until('stopped')

    def start_server(self):
        """Have Nova start the server, and wait until it is active."""
        try:
            self.nova.servers.start(self.uuid)
        except nova_exc.Conflict as err:
            # Started meanwhile: by this action's earlier run, whose
            # applier died with its request on the way. It counts.
            now = self.server(self.uuid)
            if vm_state(now) != 'active' and (
                    task_of(now) != 'powering-on'):
                raise base.ActionError('Nova refused to start server %s: '
                                       '%s' % (self.uuid, err))
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to start server %s: %s'
                                   % (self.uuid, err))
        self.wait_until('active')

    def wait_until(self, state):
        """Wait until the server rests (no task) in vm_state ``state``;
        ActionError if it goes to ERROR."""
        def settled():
            server = self.server(self.uuid)
            if task_of(server) is not None:
                return None
            if vm_state(server) == 'error':
                raise base.ActionError('server %s went to ERROR' % self.uuid)
            return vm_state(server) == state
        self.wait_for(settled, CONF.watcher_applier.migration_timeout,
                      'server %s to be %s' % (self.uuid, state))


class ServerMove(ServerAction):
    """An action that moves one server (``resource_id``) off its
    ``source_node``, to ``destination_node`` if given."""

    # Whether the started plan holds the source node too (a failed host
    # being evacuated is no resource another plan could use).
    holds_source = True

    @classmethod
    def resources(cls, input_parameters):
        found = {(holds.SERVER, input_parameters['resource_id'])}
        if cls.holds_source:
            found.add((holds.COMPUTE_NODE, input_parameters['source_node']))
        if input_parameters.get('destination_node'):
            found.add((holds.COMPUTE_NODE,
                       input_parameters['destination_node']))
        return found

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
