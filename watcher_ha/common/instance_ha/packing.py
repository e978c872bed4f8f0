"""Which reserved hosts a recovery needs: the fewest that hold the failed
host's servers.

Finding the very fewest is bin packing; this tries the k largest free
hosts for k = 1, 2, ... and packs the servers into them largest first
(first-fit decreasing), which is within a few percent of the optimum on
the sizes clouds have and deterministic: two runs over the same input
choose the same hosts, so a recovery run again after a take-over asks
for what it asked before.
"""

import dataclasses

from watcher_ha.common import resources

RESOURCES = resources.RESOURCES


@dataclasses.dataclass(frozen=True)
class Size:
    vcpus: float
    memory_mb: float
    disk_gb: float

    def fits_in(self, free):
        return all(getattr(self, r) <= free[r] for r in RESOURCES)


@dataclasses.dataclass(frozen=True)
class Packing:
    hosts: tuple            # hosts used, in the order they were chosen
    placement: dict         # server -> host
    unplaced: tuple         # servers no host had room for


def _key(size):
    return tuple(getattr(size, r) for r in ('memory_mb', 'vcpus',
                                            'disk_gb'))


def _pack(servers, hosts, free):
    free = {host: dict(free[host]) for host in hosts}
    placement, unplaced = {}, []
    for server in sorted(servers, key=lambda s: (_key(servers[s]), s),
                         reverse=True):
        size = servers[server]
        for host in hosts:
            if size.fits_in(free[host]):
                for resource in RESOURCES:
                    free[host][resource] -= getattr(size, resource)
                placement[server] = host
                break
        else:
            unplaced.append(server)
    return placement, tuple(sorted(unplaced))


def largest_first(free, held=()):
    """The hosts of ``free`` but those ``held``, in the order
    ``fewest_hosts`` takes them: the most free memory first (then vcpus,
    disk, name)."""
    return sorted((h for h in free if h not in held),
                  key=lambda h: (tuple(-free[h][r] for r in
                                       ('memory_mb', 'vcpus', 'disk_gb')),
                                 h))


def fewest_hosts(servers, free, held=()):
    """Pack ``servers`` ({name: Size}) into the hosts ``held`` first, then
    into as few of the other hosts of ``free`` ({host: {resource: free
    amount}}) as it takes. When all of them cannot hold every server, the
    packing uses every host that takes one and names the servers left
    over."""
    others = largest_first(free, held)
    best = None
    for count in range(len(others) + 1):
        hosts = tuple(held) + tuple(others[:count])
        placement, unplaced = _pack(servers, hosts, free)
        best = placement, unplaced, hosts
        if not unplaced:
            break
    placement, unplaced, hosts = best
    used = tuple(h for h in hosts if h in held or h in placement.values())
    return Packing(used, placement, unplaced)
