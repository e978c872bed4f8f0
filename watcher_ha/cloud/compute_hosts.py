"""What instance HA asks the Compute API outside a recovery: whether a
name is a nova-compute host (a segment's hosts must be)."""

import threading

from keystoneauth1 import exceptions as ks_exc
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.cloud import clients
from watcher_ha.common.instance_ha import exception

CONF = cfg.CONF

_client = None
_lock = threading.Lock()


def _nova():
    global _client
    with _lock:
        if _client is None:
            _client = clients.nova(CONF)
        return _client


def reset():
    """Forget the client (the configuration changed)."""
    global _client
    with _lock:
        _client = None


def check_compute_host(name):
    """Raise a 400 unless Nova has a nova-compute service on ``name``."""
    missing = clients.configured(CONF)
    if missing:
        raise exception.ComputeUnavailable(name=name, reason=missing)
    try:
        services = _nova().services.list(host=name, binary='nova-compute')
    except (ks_exc.ClientException, nova_exc.ClientException) as err:
        raise exception.ComputeUnavailable(name=name, reason=err)
    if not any(service.host == name for service in services):
        raise exception.NotAComputeHost(name=name)
