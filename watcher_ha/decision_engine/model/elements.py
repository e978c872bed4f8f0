"""The elements of the cluster data model: compute nodes and instances.

Both are frozen: a change makes a new element, so a snapshot holding the
old one is never affected. ``stamp`` is the time of the Nova event (or the
resync read) the element reflects; an older event never overwrites a newer
one.
"""

import dataclasses
import datetime

from watcher_ha.common import resources

# Instance states (Nova's vm_state) that mean the server is gone.
GONE_STATES = frozenset(('deleted', 'soft-delete', 'soft_deleted'))

EPOCH = datetime.datetime(1970, 1, 1)


def utcnow():
    """Now, as stamps are kept: naive UTC."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)



@dataclasses.dataclass(frozen=True, slots=True)
class ComputeNode:
    hostname: str
    uuid: str | None = None
    # 'up' or 'down': whether the compute service reports.
    state: str = 'up'
    # 'enabled' or 'disabled': whether it takes new servers.
    status: str = 'enabled'
    disabled_reason: str | None = None
    vcpus: int = 0
    memory_mb: int = 0
    disk_gb: int = 0
    vcpu_reserved: int = 0
    memory_mb_reserved: int = 0
    disk_gb_reserved: int = 0
    vcpu_ratio: float = 1.0
    memory_ratio: float = 1.0
    disk_ratio: float = 1.0
    availability_zone: str | None = None
    aggregates: frozenset = frozenset()
    # What Placement counted as used on the node, at the last full read,
    # beyond the servers the model places there: a resize's hold on its
    # source until it is confirmed, allocations of consumers that Nova
    # does not list as servers on the node (other services, allocations
    # left behind). Counted as used until the next full read.
    vcpus_held: int = 0
    memory_mb_held: int = 0
    disk_gb_held: int = 0
    stamp: datetime.datetime = EPOCH

    def held(self, resource):
        """The node's hold on ``resource`` ('vcpus', 'memory_mb',
        'disk_gb') that none of its servers in the model accounts for."""
        return getattr(self, resource + '_held')

    def capacity(self, resource):
        """Usable amount of ``resource`` ('vcpus', 'memory_mb', 'disk_gb')
        once reserved amounts and allocation ratios are applied."""
        total, reserved, ratio = {
            'vcpus': (self.vcpus, self.vcpu_reserved, self.vcpu_ratio),
            'memory_mb': (self.memory_mb, self.memory_mb_reserved,
                          self.memory_ratio),
            'disk_gb': (self.disk_gb, self.disk_gb_reserved,
                        self.disk_ratio),
        }[resource]
        return (total - reserved) * ratio


@dataclasses.dataclass(frozen=True, slots=True)
class Instance:
    uuid: str
    name: str = ''
    # Nova's vm_state: active, stopped, paused, shelved_offloaded, ...
    state: str = 'active'
    # The compute node's hostname; None while unplaced (building, shelved
    # offloaded).
    host: str | None = None
    vcpus: int = 0
    memory_mb: int = 0
    disk_gb: int = 0
    project_id: str | None = None
    metadata: tuple = ()
    locked: bool = False
    pinned_availability_zone: str | None = None
    flavor_extra_specs: tuple = ()
    # When Nova created it (naive UTC); None when not told.
    created_at: datetime.datetime | None = None
    # What Placement allocates to it, per resource class, summed over its
    # providers ((class, amount) pairs, as frozen_mapping makes them), as
    # the last read of Placement found it; None when Placement was not
    # read for it since it took its flavor (see ``allocation``).
    allocations: tuple | None = None
    stamp: datetime.datetime = EPOCH
    # The stamp of what last said where the server runs, when older than
    # ``stamp`` (None: the same). Some events do not say it (the last ones
    # of a live migration), so a later event can still be the first news
    # of a move.
    placed_stamp: datetime.datetime | None = None

    @property
    def placed_at(self):
        return self.stamp if self.placed_stamp is None else self.placed_stamp

    @property
    def metadata_dict(self):
        return dict(self.metadata)

    @property
    def flavor_extra_specs_dict(self):
        return dict(self.flavor_extra_specs)

    def allocation(self, resource_class):
        """What the server holds of ``resource_class`` in Placement: its
        allocation as read, or, when not read, what its flavor asks for
        (its vcpus, memory and disk, and its ``resources:<CLASS>`` extra
        specs); 0 of a class it holds none of."""
        if self.allocations is not None:
            return dict(self.allocations).get(resource_class, 0)
        return resources.requested(
            {'VCPU': self.vcpus, 'MEMORY_MB': self.memory_mb,
             'DISK_GB': self.disk_gb},
            self.flavor_extra_specs_dict).get(resource_class, 0)

    def same_flavor(self, other):
        """Whether ``other`` (an element of the same server) has this
        one's flavor: Placement's allocation read for one holds for the
        other."""
        return (self.vcpus, self.memory_mb, self.disk_gb,
                self.flavor_extra_specs) == (
            other.vcpus, other.memory_mb, other.disk_gb,
            other.flavor_extra_specs)


def frozen_mapping(mapping):
    """A mapping as a hashable, immutable, ordered tuple of pairs."""
    return tuple(sorted((mapping or {}).items()))


@dataclasses.dataclass(frozen=True, slots=True)
class Aggregate:
    """A host aggregate as last told: its availability zone (None: it
    sets none), uuid and id (Nova's; audit scopes name aggregates by
    it); its members are the nodes naming it."""
    name: str
    uuid: str | None = None
    id: int | None = None
    availability_zone: str | None = None
    stamp: datetime.datetime = EPOCH
