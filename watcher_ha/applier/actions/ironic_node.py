"""What the actions on a bare metal node share: Ironic's Bare Metal API
through a client whose every request that may change something passes
the action's fence first, requests on the node, reading it, and what
Ironic said when it refused."""

import json
from urllib import parse

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.common import clients

CONF = cfg.CONF


class IronicNode:
    """Mixed into an Action: ``node`` is the node's name or uuid,
    ``fields`` what reading it asks for (?fields=, Bare Metal API
    1.8+)."""
    fields: tuple = ()
    _ironic = None

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
            raise base.ActionError('Ironic could not show %s: %s'
                                   % (self.described_node(), said(response)))
        return response.json()


def said(response):
    """What Ironic said in an error response (the faultstring of the JSON
    document its error_message holds), and the status."""
    try:
        body = response.json()
    except ValueError:
        body = None
    message = body.get('error_message') if isinstance(body, dict) else None
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            pass
    if isinstance(message, dict):
        message = message.get('faultstring')
    if not (isinstance(message, str) and message):
        message = response.text.strip() or response.reason
    return '%s (HTTP %s)' % (message, response.status_code)
