"""The elements of the storage data model: Cinder's volume backends
(storage nodes), their pools and the volumes placed in them, with
Watcher 17's fields.

Like the compute elements they are frozen (a change makes a new one, so
a snapshot is never affected) and stamped with the time of the Cinder
event, or of the resync read, they reflect; an older event never
overwrites a newer one.
"""

import dataclasses
import datetime

from watcher_ha.decision_engine.model import elements

# Volume statuses (Cinder's) that mean the volume is gone.
GONE_STATUSES = frozenset(('deleted',))


def backend_of(pool_name):
    """The storage node (``host@backend``) of a pool
    (``host@backend#pool``) or of a volume's host attribute."""
    return pool_name.partition('#')[0]


def backend_name(host):
    """The backend part of ``host@backend`` ('' when there is none: a
    service of before Ocata named by its host alone)."""
    return host.partition('@')[2].partition('#')[0]


def capacity(value):
    """A capacity as Cinder reports it: a number of GiB, or None for the
    backends that say 'unknown' or 'infinite' (or nothing)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class StorageNode:
    """A cinder-volume service: one backend of one host."""
    # 'host@backend'.
    host: str
    zone: str | None = None
    # 'enabled' or 'disabled': whether the scheduler places volumes there.
    status: str = 'enabled'
    # 'up' or 'down': whether the service reports.
    state: str = 'up'
    # The names of the volume types whose volume_backend_name is this
    # backend's, sorted.
    volume_types: tuple = ()
    stamp: datetime.datetime = elements.EPOCH

    @property
    def backend(self):
        return backend_name(self.host)


@dataclasses.dataclass(frozen=True, slots=True)
class Pool:
    """A pool of a backend, as the scheduler last reported it."""
    # 'host@backend#pool'.
    name: str
    total_capacity_gb: float | None = None
    free_capacity_gb: float | None = None
    allocated_capacity_gb: float | None = None
    provisioned_capacity_gb: float | None = None
    # What thin provisioning lets be placed still: free space times the
    # over-subscription ratio, less what is provisioned beyond it.
    virtual_free: float | None = None
    total_volumes: int | None = None
    # The backend's volume_backend_name, and what kind of storage it is.
    volume_backend_name: str | None = None
    storage_protocol: str | None = None
    vendor_name: str | None = None
    driver_version: str | None = None
    thin_provisioning_support: bool | None = None
    max_over_subscription_ratio: float | None = None
    reserved_percentage: float | None = None
    stamp: datetime.datetime = elements.EPOCH

    @property
    def node(self):
        return backend_of(self.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Volume:
    uuid: str
    name: str = ''
    size: int = 0
    # Cinder's status: creating, available, in-use, extending, retyping,
    # maintenance, error, ...
    status: str = 'available'
    # ((server_id, attachment_id), ...), in attachment order.
    attachments: tuple = ()
    project_id: str | None = None
    bootable: bool = False
    multiattach: bool = False
    # The volume type's name (Cinder's API shows it so; its
    # notifications give the type's id, which the model resolves).
    volume_type: str | None = None
    volume_type_id: str | None = None
    # Where it lives: its pool ('host@backend#pool'), None until placed.
    pool: str | None = None
    availability_zone: str | None = None
    snapshot_id: str | None = None
    metadata: tuple = ()
    created_at: str | None = None
    # Cinder's migration_status: None, 'migrating', 'success', 'error'...
    migration_status: str | None = None
    stamp: datetime.datetime = elements.EPOCH

    @property
    def metadata_dict(self):
        return dict(self.metadata)

    @property
    def attached_servers(self):
        return [server for server, _attachment in self.attachments]


@dataclasses.dataclass(frozen=True, slots=True)
class VolumeType:
    """A volume type: what its id (in notifications) is called (in the
    API), and the backend its extra specs ask for."""
    id: str
    name: str
    volume_backend_name: str | None = None
    # All its extra specs, as sorted (key, value) pairs: a retype keeps
    # a volume's (Watcher's storage_capacity_balance checks them).
    extra_specs: tuple = ()
