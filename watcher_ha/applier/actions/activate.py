"""activate: make the member that took over an application's volumes its
active member (application failover, doc/source/app_failover.rst).

The member's metadata ``<role_key>`` is set to ``active``, with
``watcher_ha:activated_at`` (when), for an agent in the guest that
reads the metadata service, and as the record of the activation: a
member marked active is not activated again, and after its applier died
the action is done once the mark shows. ``method`` adds to it:

``webhook``
    first, the signed activation webhook to ``url``
    (activation_webhook.py), one delivery id per failover, so that a
    delivery sent again is acted on once;
``heat_signal``
    first, a signal to the resource ``signal_resource`` of the
    application's Heat stack ``stack`` (an OS::Heat::WaitConditionHandle,
    which an agent or a software deployment waits on): ``{"id": <the
    failover's delivery id>, "status": "SUCCESS", "reason": "activate
    <delivery id> ...", "data": {...}}``, sent only if the handle does
    not hold that id yet (Heat keeps each signal under its id), so that
    it is acted on once;
``reboot``
    then, a SOFT reboot of the member through Nova, so that the guest
    starts again in its new role; the action ends once Nova shows it
    ACTIVE again. Done is marked AND a reboot recorded by Nova (its
    instance actions) since the mark: one cut short between the two is
    rebooted when the action runs again.
"""

import datetime

from heatclient import exc as heat_exc
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import activation_webhook
from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import heat_member
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import stacks
from watcher_ha.common.app_failover import members
from watcher_ha.db import models

CONF = cfg.CONF

WEBHOOK = members.ACTIVATE_WEBHOOK
HEAT_SIGNAL = members.ACTIVATE_HEAT_SIGNAL
REBOOT = members.ACTIVATE_REBOOT


class Activate(nova_base.ServerAction):
    name = 'activate'
    description = ('Makes the member that took over an application\'s '
                   'volumes its active member.')
    schema = base.input_schema(
        {'resource_id': nova_base.SERVER_UUID,
         'resource_name': base.NAME_OR_NULL,
         'server_group': base.NAME, 'role_key': base.NAME,
         'replaces': nova_base.SERVER_UUID,
         'method': {'enum': list(members.ACTIVATIONS)},
         'url': {'type': ['string', 'null']},
         'stack': base.NAME, 'signal_resource': base.NAME},
        ['resource_id', 'server_group', 'role_key', 'replaces', 'method'])

    @property
    def method(self):
        return self.input_parameters['method']

    def _marked_at(self):
        """When the member was marked active (its activated_at; the
        epoch when a mark carries none), or None if it is not."""
        metadata = self.server(self.uuid).metadata or {}
        if metadata.get(self.input_parameters['role_key']) != \
                members.ACTIVE:
            return None
        return members.activated_at(metadata) or datetime.datetime.min

    def _done(self):
        marked_at = self._marked_at()
        if marked_at is None:
            return False
        return self.method != REBOOT or self._rebooted_since(marked_at)

    def _rebooted_since(self, moment):
        """Whether Nova recorded a reboot of the member at ``moment`` or
        later (naive UTC, to the second, as the mark records it)."""
        for action in self.nova.instance_action.list(self.uuid):
            if action.action != 'reboot':
                continue
            started = datetime.datetime.fromisoformat(
                action.start_time.replace('Z', '')).replace(
                tzinfo=None, microsecond=0)
            if started >= moment:
                return True
        return False

    def pre_condition(self):
        if self._done():
            raise base.ActionSkipped('member %s is active already'
                                     % self.uuid)
        if self.method == WEBHOOK and not (
                self.input_parameters.get('url')
                and CONF.app_failover.webhook_secret):
            raise base.ActionError('an activation webhook needs a url and '
                                   '[app_failover] webhook_secret')
        if self.method == HEAT_SIGNAL and not (
                self.input_parameters.get('stack')
                and self.input_parameters.get('signal_resource')):
            raise base.ActionError('a Heat signal activation needs a stack '
                                   'and a signal_resource')

    def execute(self):
        if self.method == WEBHOOK:
            self._deliver()
        elif self.method == HEAT_SIGNAL:
            self._signal()
        try:
            self.nova.servers.set_meta(self.uuid, {
                self.input_parameters['role_key']: members.ACTIVE,
                members.ACTIVATED_KEY: models.utcnow().isoformat(
                    timespec='seconds')})
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to mark member %s active: '
                                   '%s' % (self.uuid, err))
        if self.method == REBOOT:
            self._reboot()
        self.outcome = 'member %s is active, in place of %s' % (
            self.uuid, self.input_parameters['replaces'])

    def _deliver(self):
        url = self.input_parameters['url']
        try:
            activation_webhook.deliver(
                url, self.input_parameters['server_group'], self.uuid,
                self.input_parameters['replaces'], self.fence,
                self._aborted)
        except activation_webhook.DeliveryFailed as err:
            raise base.ActionError('the activation webhook of member %s '
                                   'was not acknowledged within %s s: %s'
                                   % (self.uuid,
                                      CONF.app_failover.webhook_timeout,
                                      err))
        except activation_webhook.Refused as err:
            raise base.ActionError('the activation webhook %s refused the '
                                   'activation of member %s: %s'
                                   % (url, self.uuid, err))

    def _signal(self):
        """Signal the stack's resource, unless it holds this failover's
        signal already."""
        heat = heat_member.client(self)
        stack = self.input_parameters['stack']
        name = self.input_parameters['signal_resource']
        replaces = self.input_parameters['replaces']
        delivery = activation_webhook.delivery_id(replaces, self.uuid)
        try:
            if stacks.signalled(heat, stack, name, delivery):
                return
            heat.resources.signal(stack, name, data={
                'id': delivery, 'status': 'SUCCESS',
                # Heat's event keeps 255 characters of it, after its own
                # 30: the id first.
                'reason': 'activate %s: member %s in place of %s' % (
                    delivery, self.uuid, replaces),
                'data': {'event': 'activate', 'delivery_id': delivery,
                         'server_group':
                             self.input_parameters['server_group'],
                         'server': self.uuid, 'replaces': replaces}})
        except stacks.StackError as err:
            raise base.ActionError(str(err))
        except heat_exc.HTTPException as err:
            raise base.ActionError('Heat refused the activation signal to '
                                   '%s of stack %s: %s'
                                   % (name, stack, stacks.said(err)))

    def _reboot(self):
        try:
            self.nova.servers.reboot(self.uuid, 'SOFT')
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to reboot member %s in its '
                                   'new role: %s' % (self.uuid, err))
        self._wait_running()

    def _wait_running(self):
        self.wait_for(lambda: self._running(), CONF.watcher_applier.
                      migration_timeout, 'member %s to run again after its '
                      'reboot' % self.uuid)

    def _running(self):
        server = self.server(self.uuid)
        return server.status == 'ACTIVE' and \
            nova_base.task_of(server) is None

    def post_condition(self):
        if not self._done():
            raise base.ActionError('member %s is not marked active%s'
                                   % (self.uuid, ', nor rebooted since'
                                      if self.method == REBOOT else ''))

    def recover(self, started_at):
        if not self._done():
            return base.NOT_DONE
        if self.method == REBOOT:
            self._wait_running()
        return base.DONE
