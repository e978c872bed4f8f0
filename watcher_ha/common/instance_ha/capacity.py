"""What Placement says a recovery has to move, and where there is room.

A server takes on its new host what Nova's request spec asks Placement
for, which is not always its flavor: a server booted from a volume holds
no local root disk, swap counts as disk, and a flavor's ``resources:``
extra specs override its amounts. The allocations the failed host's
servers hold on its resource provider say it exactly. A reserved host's
room is its inventory (less what Placement keeps reserved, times the
allocation ratio) less what is allocated on it now.

Both are read when the hosts are claimed, so they are as fresh as they
can be; where Placement does not answer for a provider, the data model's
figures from when the plan was made stand: the claim is an estimate, and
Nova checks every evacuation against Placement itself.
"""

from keystoneauth1 import exceptions as ks_exc
from oslo_log import log

from watcher_ha.common.instance_ha import packing
from watcher_ha.decision_engine.model import elements

LOG = log.getLogger(__name__)


def _read(placement, path, what):
    """Placement's JSON at ``path``, or None (logged) when it cannot
    say."""
    try:
        return placement.get(path).json()
    except (ks_exc.ClientException, ValueError) as err:
        LOG.warning('Placement could not tell %s (%s): the data model\'s '
                    'figures stand', what, err)
        return None


def server_sizes(placement, provider, sizes):
    """``sizes`` ({server uuid: packing.Size}, the flavors' as the model
    knows them), each replaced by what the server holds on ``provider``
    (the failed host's resource provider) in Placement."""
    found = _read(placement, '/resource_providers/%s/allocations'
                  % provider, 'what the servers of provider %s hold'
                  % provider)
    if found is None:
        return dict(sizes)
    held = found.get('allocations') or {}
    return {uuid: _size(held[uuid].get('resources') or {})
            if uuid in held else size
            for uuid, size in sizes.items()}


def _size(resources):
    # A class the allocation does not hold is none of it (a server
    # booted from a volume without ephemeral disk holds no DISK_GB).
    return packing.Size(**{
        resource: resources.get(cls, 0)
        for cls, resource in elements.RESOURCE_CLASSES.items()})


def free_room(placement, providers, room):
    """``room`` ({host: {resource: free amount}}, as the model knew it),
    each host whose resource provider ``providers`` names ({host:
    uuid}) read again from Placement's inventory and usages."""
    fresh = {}
    for host, free in room.items():
        provider = providers.get(host)
        if provider is None:
            fresh[host] = dict(free)
            continue
        path = '/resource_providers/%s/' % provider
        what = 'the room on %s (provider %s)' % (host, provider)
        inventory = _read(placement, path + 'inventories', what)
        usages = inventory and _read(placement, path + 'usages', what)
        if not usages:
            fresh[host] = dict(free)
            continue
        fresh[host] = _free(inventory.get('inventories') or {},
                            usages.get('usages') or {})
    return fresh


def _free(inventories, usages):
    free = {}
    for cls, resource in elements.RESOURCE_CLASSES.items():
        item = inventories.get(cls)
        if item is None:
            # Placement has none of it on the provider: no room.
            free[resource] = 0
            continue
        usable = (item.get('total', 0) - item.get('reserved', 0)) \
            * item.get('allocation_ratio', 1.0)
        free[resource] = usable - usages.get(cls, 0)
    return free
