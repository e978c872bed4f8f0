"""The simulated Nova's records: flavors, compute hosts with their
service and machine, servers, migrations, and the refusal Nova answers
with. Plain data with Nova's derived fields (a server's status, a host's
service state); the rules that change them are the cloud's (cloud.py).
"""

import collections
import dataclasses
import datetime
import math
import uuid as uuidlib

from watcher_ha.common import resources as resources_mod
from watcher_ha.simulator import clock as clock_mod

RESOURCES = resources_mod.RESOURCES
# Placement's resource class of each.
RESOURCE_CLASSES = resources_mod.RESOURCE_CLASSES


class Refused(Exception):
    """What Nova answers: ``status``, fault name, message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclasses.dataclass
class Flavor:
    id: str
    name: str
    vcpus: int
    ram: int
    disk: int
    ephemeral: int = 0
    swap: int = 0
    extra_specs: dict = dataclasses.field(default_factory=dict)

    def needs(self, volume_backed=False):
        """What Placement allocates to a server of this flavor, as Nova's
        request spec asks for it: a ``resources:<CLASS>`` extra spec
        overrides the flavor's amount, swap (MB) counts as disk rounded up
        to whole GB, and a server booted from a volume takes no local root
        disk. Keyed by RESOURCES, and by its class name for any other
        class a ``resources:`` extra spec asks for (a custom class, VGPU,
        PCPU...)."""
        asked = resources_mod.requested({
            'VCPU': self.vcpus, 'MEMORY_MB': self.ram,
            'DISK_GB': (0 if volume_backed else self.disk)
            + self.ephemeral + math.ceil(self.swap / 1024)},
            self.extra_specs)
        amounts = {resource: asked.pop(resource_class, 0)
                   for resource_class, resource in RESOURCE_CLASSES.items()}
        amounts.update(asked)
        return amounts


@dataclasses.dataclass
class Host:
    name: str
    vcpus: int
    memory_mb: int
    disk_gb: int
    uuid: str = dataclasses.field(default_factory=lambda: str(uuidlib.uuid4()))
    service_id: str = dataclasses.field(
        default_factory=lambda: str(uuidlib.uuid4()))
    hypervisor_id: int = 0
    vcpu_reserved: int = 0
    memory_mb_reserved: int = 512
    disk_gb_reserved: int = 0
    vcpu_ratio: float = 16.0
    memory_ratio: float = 1.5
    disk_ratio: float = 1.0
    availability_zone: str = 'nova'
    aggregates: list = dataclasses.field(default_factory=list)
    # Its provider's inventory of the classes beyond RESOURCES (a custom
    # class, VGPU...): {class: total}, none reserved, ratio 1.
    inventory: dict = dataclasses.field(default_factory=dict)
    # A failover segment's reserved host (instance HA).
    reserved: bool = False
    status: str = 'enabled'
    disabled_reason: str | None = None
    forced_down: bool = False
    report_count: int = 0
    created_at: datetime.datetime = dataclasses.field(
        default_factory=clock_mod.REAL.now)
    updated_at: datetime.datetime | None = None
    # When a failed host's service last reported.
    silent_since: datetime.datetime | None = None
    # The machine (see hosts.py): its power (what the BMC reports), its
    # operating system with nova-compute and the guests (dead after a
    # crash or a power loss, and while booting), its network.
    powered_on: bool = True
    compute_running: bool = True
    partitioned: bool = False
    # Bumped by every power or boot change, so that a boot that a later
    # change overtook does not finish.
    power_epoch: int = 0
    # Nova's [DEFAULT] service_down_time: how long a silent service still
    # counts as up (0: down at once, the simulator's default; Nova's 60).
    service_down_time: float = 0.0
    # What tells the time whether a silent service is down yet: the
    # cloud's clock, once the host is the cloud's.
    clock: clock_mod.Clock = dataclasses.field(
        default=clock_mod.REAL, repr=False, compare=False)

    @property
    def reporting(self):
        """The compute service reports: the host runs, and its network
        reaches the message bus."""
        return (self.powered_on and self.compute_running
                and not self.partitioned)

    @property
    def state(self):
        """Nova's servicegroup: down when forced down, or silent for
        longer than service_down_time."""
        if self.forced_down:
            return 'down'
        if self.reporting:
            return 'up'
        if self.silent_since is not None and (
                self.clock.now() - self.silent_since).total_seconds() \
                < self.service_down_time:
            return 'up'
        return 'down'

    @property
    def last_seen_up(self):
        """The service's last report: a reporting service reports all
        the time (Nova's report_interval is 10 s)."""
        return self.clock.now() if self.reporting else self.silent_since

    def capacity(self, resource):
        if resource not in RESOURCES:
            return self.inventory.get(resource, 0)
        total, reserved, ratio = {
            'vcpus': (self.vcpus, self.vcpu_reserved, self.vcpu_ratio),
            'memory_mb': (self.memory_mb, self.memory_mb_reserved,
                          self.memory_ratio),
            'disk_gb': (self.disk_gb, self.disk_gb_reserved, self.disk_ratio),
        }[resource]
        return (total - reserved) * ratio


@dataclasses.dataclass
class Server:
    uuid: str
    name: str
    flavor: Flavor
    host: str | None
    tenant_id: str = 'admin'
    user_id: str = 'admin'
    vm_state: str = 'active'
    power_state: int = 1
    task_state: str | None = None
    metadata: dict = dataclasses.field(default_factory=dict)
    locked: bool = False
    locked_reason: str | None = None
    key_name: str | None = None
    image_uuid: str = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
    availability_zone: str | None = 'nova'
    pinned_availability_zone: str | None = None
    created_at: datetime.datetime = dataclasses.field(
        default_factory=clock_mod.REAL.now)
    launched_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None
    # While a cold migration or resize waits for confirmation.
    old_flavor: Flavor | None = None
    source_host: str | None = None
    # While an evacuation runs: the destination its allocation is claimed
    # on. After it: the hosts it left its allocation on, until their
    # nova-compute starts again and cleans up (Nova's
    # _destroy_evacuated_instances).
    evacuating_to: str | None = None
    left_on: tuple = ()
    # Nova's instance fault, shown while the server is in ERROR.
    fault: dict | None = None
    # The volume a server booted from a volume boots from (None: from
    # its image, on the host's disk).
    root_volume: str | None = None
    # Nova's block device mappings of its data volumes: volume id ->
    # BlockDevice. Nova's own records: a Cinder attachment deleted behind
    # Nova's back leaves its mapping here, as in Nova.
    volumes: dict = dataclasses.field(default_factory=dict)
    load: dict = dataclasses.field(default_factory=dict)
    # Its ports (networks.Port), in the order its create asked for them.
    ports: tuple = ()
    # Nova's instance actions, oldest first (instance_actions.py).
    actions: list = dataclasses.field(default_factory=list)

    def __setattr__(self, name, value):
        old = self.__dict__.get(name)
        object.__setattr__(self, name, value)
        by_host = self.__dict__.get('by_host')
        if by_host is not None and name in HOST_FIELDS and old != value:
            by_host.moved(self, old)

    def needs(self, flavor=None):
        """What Placement allocates to the server with its flavor, or
        with ``flavor`` (a resize's new one)."""
        return (flavor or self.flavor).needs(
            volume_backed=self.root_volume is not None)

    def holds_on(self):
        """The hosts the server holds an allocation on."""
        found = {getattr(self, name) for name in HOST_FIELDS
                 if name != 'left_on'}
        found.update(self.left_on)
        found.discard(None)
        return found

    @property
    def status(self):
        if self.vm_state == 'resized':
            return 'VERIFY_RESIZE'
        if self.task_state == 'migrating':
            return 'MIGRATING'
        if self.task_state in ('resize_prep', 'resize_migrating',
                               'resize_migrated', 'resize_finish'):
            return 'RESIZE'
        if self.task_state in REBUILDING:
            return 'REBUILD'
        if self.task_state in ('reboot_pending', 'reboot_started',
                               'rebooting'):
            return 'REBOOT'
        if self.task_state in ('reboot_pending_hard', 'reboot_started_hard',
                               'rebooting_hard'):
            return 'HARD_REBOOT'
        return {'active': 'ACTIVE', 'stopped': 'SHUTOFF',
                'shelved_offloaded': 'SHELVED_OFFLOADED',
                'shelved': 'SHELVED', 'error': 'ERROR',
                'building': 'BUILD', 'paused': 'PAUSED',
                'suspended': 'SUSPENDED'}.get(self.vm_state, 'ACTIVE')


@dataclasses.dataclass
class BlockDevice:
    """Nova's block device mapping of a data volume to a server: its
    device, and the Cinder attachment Nova made for it (None while only
    reserved on a shelved offloaded server, as Nova's old flow has it)."""
    volume_id: str
    server_uuid: str
    device: str
    attachment_id: str | None
    uuid: str = dataclasses.field(default_factory=lambda: str(uuidlib.uuid4()))
    tag: str | None = None
    delete_on_termination: bool = False


# The vm_states Nova shelves.
SHELVABLE = ('active', 'stopped', 'paused', 'suspended')
# The statuses of a migration under way.
IN_PROGRESS = ('queued', 'preparing', 'running')
# The task states of a rebuild (an evacuation is one): status REBUILD.
REBUILDING = ('rebuilding', 'rebuild_block_device_mapping',
              'rebuild_spawning')
# The fields naming a host (or, left_on, hosts) a server holds resources
# on.
HOST_FIELDS = ('host', 'source_host', 'evacuating_to', 'left_on')


class ServersByHost:
    """The servers that may hold resources on each host (as its host, or
    as a resize's source), kept as they move: a host's usage costs its
    servers, not the cloud's (Placement is asked for each host's)."""

    def __init__(self):
        self._uuids = collections.defaultdict(set)

    def add(self, server):
        object.__setattr__(server, 'by_host', self)
        for host in server.holds_on():
            self._uuids[host].add(server.uuid)

    def remove(self, server):
        for host in server.holds_on():
            self._uuids.get(host, set()).discard(server.uuid)
        object.__setattr__(server, 'by_host', None)

    def moved(self, server, old):
        """``server``'s field changed from ``old`` (a host, or hosts)."""
        still = server.holds_on()
        old_hosts = set(old) if isinstance(old, tuple) else {old}
        for host in old_hosts - still - {None}:
            self._uuids[host].discard(server.uuid)
        for host in still:
            self._uuids[host].add(server.uuid)

    def uuids(self, host):
        return self._uuids.get(host, ())


@dataclasses.dataclass
class Migration:
    id: int
    uuid: str
    server_uuid: str
    source: str
    dest: str | None
    kind: str            # live-migration, migration, resize, evacuation
    status: str          # queued, running, completed, finished, confirmed,
    #                      failed, error; an evacuation's: accepted,
    #                      pre-migrating, done, completed, failed, error
    old_flavor_id: str
    new_flavor_id: str
    created_at: datetime.datetime = dataclasses.field(
        default_factory=clock_mod.REAL.now)
    updated_at: datetime.datetime | None = None
    # When a live migration left its source's queue and began.
    started_at: datetime.datetime | None = None
    memory_total_bytes: int = 0
    memory_processed_bytes: int = 0
    # An evacuation's source restarted its nova-compute meanwhile: its
    # guest destroyed, its allocation released.
    source_cleaned: bool = False
