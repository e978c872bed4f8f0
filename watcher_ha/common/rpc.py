"""oslo.messaging plumbing: one transport per process, clients on topics."""

import threading

import oslo_messaging
from oslo_config import cfg

CONF = cfg.CONF

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


def get_client(topic, version='1.0'):
    target = oslo_messaging.Target(topic=topic, version=version)
    return oslo_messaging.get_rpc_client(get_transport(), target)
