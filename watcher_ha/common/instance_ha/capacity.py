"""What Placement says a recovery has to move, and where there is room.

A server takes on its new host what Nova's request spec asks Placement
for, which is not always its flavor: a server booted from a volume holds
no local root disk, swap counts as disk, and a flavor's ``resources:``
extra specs override its amounts. The allocations the failed host's
servers hold on its resource provider say it exactly. A reserved host's
room is its inventory (less what Placement keeps reserved, times the
allocation ratio) less what is allocated on it now.

Both are read when the hosts are held, so they are as fresh as they
can be (applier/actions/claim_reserved_hosts.py reads Placement; the
rules here take its answers); where Placement does not answer for a
provider, the data model's figures from when the plan was made stand: the
choice is an estimate, and Nova checks every evacuation against Placement
itself.
"""

from watcher_ha.common.instance_ha import packing
from watcher_ha.common import resources


def server_sizes(allocations, sizes):
    """``sizes`` ({server uuid: packing.Size}, the flavors' as the model
    knows them), each replaced by what the server holds in
    ``allocations``: Placement's answer to ``GET /resource_providers/
    {failed host's provider}/allocations``, None where it gave none."""
    if allocations is None:
        return dict(sizes)
    held = allocations.get('allocations') or {}
    return {uuid: _size(held[uuid].get('resources') or {})
            if uuid in held else size
            for uuid, size in sizes.items()}


def _size(amounts):
    # A class the allocation does not hold is none of it (a server
    # booted from a volume without ephemeral disk holds no DISK_GB).
    return packing.Size(**{
        resource: amounts.get(cls, 0)
        for cls, resource in resources.RESOURCE_CLASSES.items()})


def free_room(inventories, usages):
    """{resource: free amount} of a provider, from Placement's answers to
    ``GET .../inventories`` and ``GET .../usages``."""
    inventories = inventories.get('inventories') or {}
    usages = usages.get('usages') or {}
    free = {}
    for cls, resource in resources.RESOURCE_CLASSES.items():
        item = inventories.get(cls)
        if item is None:
            # Placement has none of it on the provider: no room.
            free[resource] = 0
            continue
        usable = (item.get('total', 0) - item.get('reserved', 0)) \
            * item.get('allocation_ratio', 1.0)
        free[resource] = usable - usages.get(cls, 0)
    return free
