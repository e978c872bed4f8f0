"""activate: make the member that took over an application's volumes its
active member (application failover, doc/source/app_failover.rst).

With ``method`` ``webhook``, a POST to ``url`` first: a JSON body naming
the application, the member activated and the member it replaces,
signed with HMAC-SHA256 under [app_failover] webhook_secret
(``X-Watcher-HA-Signature: sha256=<hex>``) and carrying a delivery id
(``X-Watcher-HA-Delivery``) that is the same for every delivery of this
failover, whoever sends it and however often: the receiver acts on the
first and acknowledges the others. Failed deliveries are sent again
(tenacity, [app_failover] webhook_timeout). Then, with either method,
the member's metadata ``<role_key>`` is set to ``active`` (with
``watcher_ha:activated_at``, its time), for an agent in the guest that
reads the metadata service, and as the record of the activation: a
member marked active is not activated again, and after its applier died
the action is done once the mark shows.
"""

import hashlib
import hmac
import json
import uuid as uuidlib

import requests
import tenacity
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.applier.actions import base
from watcher_ha.applier.actions import nova_base
from watcher_ha.common.app_failover import members
from watcher_ha.db import models

CONF = cfg.CONF

METADATA = 'metadata'
WEBHOOK = 'webhook'
# The namespace of delivery ids: one failover, one id.
DELIVERY_NAMESPACE = uuidlib.UUID('6a2f7c1e-3b9d-4e58-a0c4-9f1d2e7b5a36')
SIGNATURE_HEADER = 'X-Watcher-HA-Signature'
DELIVERY_HEADER = 'X-Watcher-HA-Delivery'
# Seconds one delivery waits for its answer.
DELIVERY_TIMEOUT = 10


class DeliveryFailed(Exception):
    """A delivery that may succeed if sent again."""


def delivery_id(replaces, activated):
    """The delivery id of the activation of ``activated`` in place of
    ``replaces``."""
    return str(uuidlib.uuid5(DELIVERY_NAMESPACE,
                             '%s>%s' % (replaces, activated)))


def signature(secret, body):
    return 'sha256=' + hmac.new(secret.encode(), body,
                                hashlib.sha256).hexdigest()


class Activate(nova_base.ServerAction):
    name = 'activate'
    description = ('Makes the member that took over an application\'s '
                   'volumes its active member.')
    schema = base.input_schema(
        {'resource_id': nova_base.SERVER_UUID,
         'resource_name': base.NAME_OR_NULL,
         'server_group': base.NAME, 'role_key': base.NAME,
         'replaces': nova_base.SERVER_UUID,
         'method': {'enum': [METADATA, WEBHOOK]},
         'url': {'type': ['string', 'null']}},
        ['resource_id', 'server_group', 'role_key', 'replaces', 'method'])

    @property
    def role_key(self):
        return self.input_parameters['role_key']

    def _active(self):
        server = self.server(self.uuid)
        return (server.metadata or {}).get(self.role_key) == members.ACTIVE

    def pre_condition(self):
        if self._active():
            raise base.ActionSkipped('member %s is active already'
                                     % self.uuid)
        if self.input_parameters['method'] == WEBHOOK and not (
                self.input_parameters.get('url')
                and CONF.app_failover.webhook_secret):
            raise base.ActionError('an activation webhook needs a url and '
                                   '[app_failover] webhook_secret')

    def execute(self):
        if self.input_parameters['method'] == WEBHOOK:
            self._deliver()
        try:
            self.nova.servers.set_meta(self.uuid, {
                self.role_key: members.ACTIVE,
                members.ACTIVATED_KEY: models.utcnow().isoformat(
                    timespec='seconds')})
        except nova_exc.ClientException as err:
            raise base.ActionError('Nova refused to mark member %s active: '
                                   '%s' % (self.uuid, err))
        self.outcome = 'member %s is active, in place of %s' % (
            self.uuid, self.input_parameters['replaces'])

    def _deliver(self):
        delivery = delivery_id(self.input_parameters['replaces'], self.uuid)
        body = json.dumps({
            'event': 'activate', 'delivery_id': delivery,
            'server_group': self.input_parameters['server_group'],
            'server': self.uuid,
            'replaces': self.input_parameters['replaces']},
            sort_keys=True).encode()
        headers = {'Content-Type': 'application/json',
                   DELIVERY_HEADER: delivery,
                   SIGNATURE_HEADER: signature(
                       CONF.app_failover.webhook_secret, body)}
        retrying = tenacity.Retrying(
            stop=(tenacity.stop_after_delay(CONF.app_failover.webhook_timeout)
                  | tenacity.stop_when_event_set(self._aborted)),
            wait=tenacity.wait_exponential(multiplier=1, max=10),
            retry=tenacity.retry_if_exception_type(DeliveryFailed),
            reraise=True)
        try:
            retrying(self._send, body, headers)
        except DeliveryFailed as err:
            raise base.ActionError('the activation webhook of member %s '
                                   'was not acknowledged within %s s: %s'
                                   % (self.uuid,
                                      CONF.app_failover.webhook_timeout,
                                      err))

    def _send(self, body, headers):
        # The guest acts on it: it passes the fence as a cloud call does.
        self.fence()
        url = self.input_parameters['url']
        try:
            # A redirect would turn the POST into a GET: only the
            # address given is delivered to.
            response = requests.post(url, data=body, headers=headers,
                                     timeout=DELIVERY_TIMEOUT,
                                     allow_redirects=False)
        except requests.RequestException as err:
            raise DeliveryFailed('%s: %s' % (url, err))
        if 200 <= response.status_code < 300:
            return
        if response.status_code >= 500 or response.status_code in (408,
                                                                     429):
            raise DeliveryFailed('%s answered %s' % (
                url, response.status_code))
        raise base.ActionError('the activation webhook %s refused the '
                               'activation of member %s: %s %s' % (
                                   url, self.uuid, response.status_code,
                                   response.text[:200]))

    def post_condition(self):
        if not self._active():
            raise base.ActionError('member %s is not marked active'
                                   % self.uuid)

    def recover(self, started_at):
        return base.DONE if self._active() else base.NOT_DONE
