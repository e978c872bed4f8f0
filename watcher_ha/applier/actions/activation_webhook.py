"""The activation webhook of application failover: a POST of a JSON body
naming the application, the member activated and the member it
replaces, signed with HMAC-SHA256 under [app_failover] webhook_secret
(``X-Watcher-HA-Signature: sha256=<hex>``) and carrying a delivery id
(``X-Watcher-HA-Delivery``) that is the same for every delivery of one
failover, whoever sends it and however often: the receiver acts on the
first and acknowledges the others. A delivery that fails (no answer, a
5xx, 408 or 429) is sent again (tenacity) for [app_failover]
webhook_timeout seconds; a redirect, or another 4xx, is a refusal."""

import hashlib
import hmac
import json
import uuid as uuidlib

import requests
import tenacity
from oslo_config import cfg

CONF = cfg.CONF

# The namespace of delivery ids: one failover, one id.
DELIVERY_NAMESPACE = uuidlib.UUID('6a2f7c1e-3b9d-4e58-a0c4-9f1d2e7b5a36')
SIGNATURE_HEADER = 'X-Watcher-HA-Signature'
DELIVERY_HEADER = 'X-Watcher-HA-Delivery'
# Seconds one delivery waits for its answer.
DELIVERY_TIMEOUT = 10


class DeliveryFailed(Exception):
    """A delivery that may succeed if sent again."""


class Refused(Exception):
    """The receiver refused the activation: sending it again would not
    help."""


def delivery_id(replaces, activated):
    """The delivery id of the activation of ``activated`` in place of
    ``replaces``."""
    return str(uuidlib.uuid5(DELIVERY_NAMESPACE,
                             '%s>%s' % (replaces, activated)))


def signature(secret, body):
    return 'sha256=' + hmac.new(secret.encode(), body,
                                hashlib.sha256).hexdigest()


def deliver(url, server_group, server, replaces, fence, aborted):
    """Deliver the activation of ``server`` in place of ``replaces`` to
    ``url`` until acknowledged; ``fence()`` is called before each
    delivery (the guest acts on it, as on a cloud call), ``aborted`` (an
    Event) ends the retries. DeliveryFailed when no delivery was
    acknowledged in time; Refused when the receiver refused it."""
    delivery = delivery_id(replaces, server)
    body = json.dumps({
        'event': 'activate', 'delivery_id': delivery,
        'server_group': server_group, 'server': server,
        'replaces': replaces}, sort_keys=True).encode()
    headers = {'Content-Type': 'application/json',
               DELIVERY_HEADER: delivery,
               SIGNATURE_HEADER: signature(CONF.app_failover.webhook_secret,
                                           body)}
    retrying = tenacity.Retrying(
        stop=(tenacity.stop_after_delay(CONF.app_failover.webhook_timeout)
              | tenacity.stop_when_event_set(aborted)),
        wait=tenacity.wait_exponential(multiplier=1, max=10),
        retry=tenacity.retry_if_exception_type(DeliveryFailed),
        reraise=True)
    retrying(_send, url, body, headers, fence)


def _send(url, body, headers, fence):
    fence()
    try:
        # A redirect would turn the POST into a GET: only the address
        # given is delivered to.
        response = requests.post(url, data=body, headers=headers,
                                 timeout=DELIVERY_TIMEOUT,
                                 allow_redirects=False)
    except requests.RequestException as err:
        raise DeliveryFailed('%s: %s' % (url, err))
    if 200 <= response.status_code < 300:
        return
    if response.status_code >= 500 or response.status_code in (408, 429):
        raise DeliveryFailed('%s answered %s' % (url, response.status_code))
    raise Refused('%s %s' % (response.status_code, response.text[:200]))
