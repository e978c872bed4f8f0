"""Defaults we give oslo.messaging's [DEFAULT] transport options.

With no configuration at all, watcher_ha runs embedded: one process with
the in-process ``fake://`` transport. Deployments set ``transport_url``
(e.g. ``rabbit://user:pass@host:5672/``) to run daemons apart.

oslo.concurrency's ``[oslo_concurrency] lock_path`` is the bus's too:
with ``[oslo_messaging_rabbit] use_queue_manager``, the RabbitMQ driver
names its reply queues under an inter-process lock kept there. It gets a
default under ``state_path``, so that the option works without it.
"""

import oslo_messaging
from oslo_concurrency import lockutils
from oslo_config import cfg
from oslo_messaging.rpc import client as rpc_client
from oslo_messaging import transport as messaging_transport

EMBEDDED_TRANSPORT_URL = 'fake://'
CONTROL_EXCHANGE = 'watcher_ha'
LOCK_PATH = '$state_path/lock'


def set_defaults():
    oslo_messaging.set_transport_defaults(CONTROL_EXCHANGE)
    # oslo.messaging exposes no public setter for the URL default; its opts
    # list is the documented way the generator finds these options.
    cfg.set_defaults(messaging_transport._transport_opts,
                     transport_url=EMBEDDED_TRANSPORT_URL)
    lockutils.set_defaults(LOCK_PATH)


def register_opts(conf):
    """Register early what we read before the first RPC client exists."""
    set_defaults()
    conf.register_opts(messaging_transport._transport_opts)
    conf.register_opts(rpc_client._client_opts)
