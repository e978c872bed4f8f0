"""What the actions on a bare metal node share: Ironic's Bare Metal API
through a client whose every request that may change something passes
the action's fence first, requests on the node, reading it, asking for a
power state and waiting for it, and what Ironic said when it refused."""

from urllib import parse

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
import tenacity

from watcher_ha.applier.actions import base
from watcher_ha.cloud import clients
from watcher_ha.cloud import ironic

CONF = cfg.CONF


class IronicNode:
    """Mixed into an Action: ``node`` is the node's name or uuid,
    ``fields`` what reading it asks for (?fields=, Bare Metal API
    1.8+; the power steps need power_state and target_power_state)."""
    fields: tuple = ()
    _ironic = None
    # Whether this run's power request was accepted.
    _requested = False
    # Why the latest power request was refused for now (a lock), if it
    # was.
    _refused = None

    @property
    def node(self):
        raise NotImplementedError

    def doing(self):
        """What the action does, for its messages: 'power compute-1 off'."""
        raise NotImplementedError

    def described_node(self):
        """The node as its messages name it."""
        return 'node %s' % self.node

    def unknown_node(self):
        """What to say when Ironic has no such node."""
        return 'Ironic has no node %s' % self.node

    @property
    def ironic(self):
        """A Bare Metal API adapter, made on first use (read when called,
        as NovaAction.nova)."""
        if self._ironic is None:
            reason = clients.configured(CONF, clients.IRONIC_GROUP)
            if reason:
                raise base.ActionError('cannot %s through Ironic: %s'
                                       % (self.doing(), reason))
            self._ironic = clients.ironic(CONF,
                                          before_write=lambda: self.fence())
        return self._ironic

    def call(self, method, path, **kwargs):
        """Ironic's response, whatever its status; ActionError when Ironic
        cannot be reached (what the fence raises goes through)."""
        try:
            return self.ironic.request(path, method, raise_exc=False,
                                       **kwargs)
        except ks_exc.ClientException as err:
            raise base.ActionError(
                'could not ask Ironic to %s: %s (the [ironic] options say '
                'where Ironic is and how to authenticate)'
                % (self.doing(), err))

    def path(self, *more):
        return '/'.join(('/v1/nodes', parse.quote(self.node, safe=''))
                        + more)

    def read(self):
        """The node's ``fields``, as Ironic shows them now."""
        response = self.call('GET', self.path(),
                             params={'fields': ','.join(self.fields)})
        if response.status_code == 404:
            raise base.ActionError(self.unknown_node())
        if response.status_code != 200:
            raise base.ActionError('Ironic could not show %s: %s' % (
                self.described_node(), ironic.said(response)))
        return response.json()

    # Asking for a power state, and waiting for it.

    # The option power_timeout() reads, for messages.
    power_timeout_option = None

    def power_timeout(self):
        """Seconds a power request may take, from its option."""
        raise NotImplementedError

    def refused_power(self, target, response):
        """What to say when Ironic refused the power request for good."""
        return 'Ironic refused to %s: %s' % (self.doing(),
                                             ironic.said(response))

    def power_step(self, target, before_request=None):
        """One look at the node, with a request for power state ``target``
        ('power on', 'power off') if it needs one, after
        ``before_request(node)``: the node once no power action is under
        way and it is in ``target``, or this run's request ended (in
        failure, if it is not in ``target``); else None."""
        node = self.read()
        if node.get('target_power_state') is not None:
            return None     # a power action under way: wait for its end
        if node.get('power_state') == target or self._requested:
            return node
        if before_request is not None:
            before_request(node)
        self._request_power(target)
        return None

    def _request_power(self, target):
        response = self.call('PUT', self.path('states', 'power'),
                             json={'target': target})
        if response.status_code == 202:
            self._requested, self._refused = True, None
        elif response.status_code == 409:
            # NodeLocked: another operation holds the node; ask again.
            self._refused = ironic.said(response)
        elif response.status_code == 404:
            raise base.ActionError(self.unknown_node())
        else:
            raise base.ActionError(self.refused_power(target, response))

    def poll(self, step):
        """``step()`` every [watcher_applier] poll_interval until it
        returns something, which is returned; None after
        ``power_timeout()``; ActionError on abort (Ironic cannot abort a
        power action: it goes on, only the wait stops)."""
        retrying = tenacity.Retrying(
            stop=(tenacity.stop_after_delay(self.power_timeout())
                  | tenacity.stop_when_event_set(self._aborted)),
            wait=tenacity.wait_fixed(CONF.watcher_applier.poll_interval),
            retry=tenacity.retry_if_result(lambda value: value is None),
            retry_error_callback=lambda state: state.outcome.result())
        found = retrying(step)
        if found is None and self.aborted:
            raise base.ActionError('aborted while waiting to %s'
                                   % self.doing())
        return found

    def timed_out(self, what):
        """The error of a wait that ran out of time: ``what`` did not
        happen ('node n was not reported power off')."""
        return base.ActionError('%s within %s s (%s): %s' % (
            what, self.power_timeout(), self.power_timeout_option,
            self._refused or power_state_of(self.read())))

    def recover_power(self, target):
        """DONE if the node is in ``target`` once no power action is under
        way (one is waited for first), NOT_DONE otherwise: asking for a
        power state twice is harmless."""
        node = self.poll(self._idle)
        if node is not None and node.get('power_state') == target:
            return base.DONE
        return base.NOT_DONE

    def _idle(self):
        node = self.read()
        return node if node.get('target_power_state') is None else None


def power_state_of(node):
    """The node's power fields, for messages."""
    return 'power state %s, target %s, last error %s, reservation %s' % (
        node.get('power_state'), node.get('target_power_state'),
        node.get('last_error'), node.get('reservation'))
