"""Reading and switching the nova-compute service of a host, for the
applier's actions and for the decision engines' instance HA alike."""

from novaclient import exceptions as nova_exc


class ServiceError(Exception):
    """The host has no nova-compute service, or Nova refused a change."""


def find(nova, host):
    """The nova-compute service of ``host``."""
    found = nova.services.list(host=host, binary='nova-compute')
    if not found:
        raise ServiceError('no nova-compute service on %s' % host)
    return found[0]


def set_enabled(nova, host, enabled, reason=None):
    """Enable or disable (with ``reason``) the compute service of
    ``host``, if it is not so already."""
    service = find(nova, host)
    if service.status == ('enabled' if enabled else 'disabled'):
        return
    try:
        if enabled:
            nova.services.enable(service.id)
        else:
            nova.services.disable_log_reason(service.id, reason)
    except nova_exc.ClientException as err:
        raise ServiceError('Nova refused to %s %s: %s' % (
            'enable' if enabled else 'disable', host, err))
