"""oslo.messaging plumbing: one transport per process, clients on topics."""

import threading

import oslo_messaging
from oslo_config import cfg
from oslo_log import log

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# oslo.messaging retries a send forever by default: with the broker down an
# API request would hang after its transaction committed.
CAST_RETRIES = 2
CALL_RETRIES = 1

# What of a request context never goes on the bus: the caller's Keystone
# token and the like, with which anyone reading the queues could act as
# the caller until they expire. The receivers need none of them: the
# daemons act with admin contexts of their own.
SECRET_CONTEXT_KEYS = frozenset(('auth_token', 'auth_token_info',
                                 'service_token'))

_TRANSPORT = None
_LOCK = threading.Lock()


def get_transport(conf=None):
    """The process's transport, made once even when threads race for it."""
    global _TRANSPORT
    if _TRANSPORT is None:
        with _LOCK:
            if _TRANSPORT is None:
                _TRANSPORT = oslo_messaging.get_rpc_transport(conf or CONF)
    return _TRANSPORT


def cleanup():
    global _TRANSPORT
    if _TRANSPORT is not None:
        _TRANSPORT.cleanup()
    _TRANSPORT = None


def wire_context(context):
    """``context`` (a RequestContext or its dict) as it may be sent."""
    values = context if isinstance(context, dict) else context.to_dict()
    return {key: value for key, value in values.items()
            if key not in SECRET_CONTEXT_KEYS}


class ContextSerializer(oslo_messaging.NoOpSerializer):
    """Sends every context without its secrets, whoever built it."""

    def serialize_context(self, ctxt):
        return wire_context(ctxt)


def get_client(topic, version='1.0'):
    target = oslo_messaging.Target(topic=topic, version=version)
    return oslo_messaging.get_rpc_client(get_transport(), target,
                                         serializer=ContextSerializer())


def cast_or_log(client, context, method, **kwargs):
    """Cast after a commit; a failure to send is logged, not raised.

    The row that was committed is the truth and the receivers' periodic
    sweeps find it, so the caller's request still succeeds.
    """
    try:
        client.prepare(retry=CAST_RETRIES).cast(context, method, **kwargs)
    except Exception as err:  # noqa: BLE001
        # Drivers let their own errors through (kombu's OperationalError
        # when the broker refuses connections), not only MessagingException.
        LOG.warning('Could not send %s(%s) on the message bus: %s; the '
                    'periodic sweep will pick the work up.', method,
                    kwargs, err)
