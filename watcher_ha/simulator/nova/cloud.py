"""The simulated cloud: compute hosts and their services, flavors, servers
and migrations, with Nova's rules.

Every operation runs under one lock and either changes the cloud or
raises ``Refused`` with the HTTP status and message Nova would give.
Operations that take time in Nova (live migration, cold migration,
evacuation, a host's power actions and boot) finish later on a timer
(``_later``); each step emits the notifications Nova emits, through
``events`` (see the simulator's notifications.py). A host's failures
and power are hosts.py, evacuation is evacuation.py, Ironic's view of
the hosts is ironic/baremetal.py: each works on this cloud, under its
lock.
"""

import collections
import dataclasses
import datetime
import itertools
import math
import threading
import uuid as uuidlib

from watcher_ha.simulator.nova import server_groups

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
# Placement's resource class of each.
RESOURCE_CLASSES = {'VCPU': 'vcpus', 'MEMORY_MB': 'memory_mb',
                    'DISK_GB': 'disk_gb'}
# Seconds an evacuation takes (the rebuild on the destination: disk from
# the cached image or the shared storage, guest spawned), a power action
# takes at the BMC (IPMI, Redfish), and a powered-on host takes until its
# nova-compute reports (firmware, OS, services). Scenarios set their own.
EVACUATE_SECONDS = 5.0
POWER_SECONDS = 5.0
BOOT_SECONDS = 120.0
# Nova's [DEFAULT] max_concurrent_live_migrations, and its default: how
# many live migrations a nova-compute runs out of its host at once (0: no
# limit). The others wait there, 'queued', in the order they came: a
# plan's parallel migrations off one host run one after another.
MAX_CONCURRENT_LIVE_MIGRATIONS = 1
# oslo.messaging's [DEFAULT] rpc_response_timeout, and its default: how
# long nova-api waits for a nova-compute to answer a call. Nova's
# set_host_enabled gives up after it when the compute sends nothing
# (its call_monitor_timeout), whatever its long_rpc_timeout.
RPC_RESPONSE_TIMEOUT = 60.0


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


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
        disk."""
        amounts = {'vcpus': self.vcpus, 'memory_mb': self.ram,
                   'disk_gb': (0 if volume_backed else self.disk)
                   + self.ephemeral + math.ceil(self.swap / 1024)}
        for resource_class, resource in RESOURCE_CLASSES.items():
            override = self.extra_specs.get('resources:' + resource_class)
            if override is not None:
                amounts[resource] = int(override)
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
    # A failover segment's reserved host (instance HA).
    reserved: bool = False
    status: str = 'enabled'
    disabled_reason: str | None = None
    forced_down: bool = False
    report_count: int = 0
    created_at: datetime.datetime = dataclasses.field(default_factory=utcnow)
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
                utcnow() - self.silent_since).total_seconds() \
                < self.service_down_time:
            return 'up'
        return 'down'

    @property
    def last_seen_up(self):
        """The service's last report: a reporting service reports all
        the time (Nova's report_interval is 10 s)."""
        return utcnow() if self.reporting else self.silent_since

    def capacity(self, resource):
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
    created_at: datetime.datetime = dataclasses.field(default_factory=utcnow)
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
    load: dict = dataclasses.field(default_factory=dict)

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
        return {'active': 'ACTIVE', 'stopped': 'SHUTOFF',
                'shelved_offloaded': 'SHELVED_OFFLOADED',
                'shelved': 'SHELVED', 'error': 'ERROR',
                'building': 'BUILD', 'paused': 'PAUSED',
                'suspended': 'SUSPENDED'}.get(self.vm_state, 'ACTIVE')


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
    created_at: datetime.datetime = dataclasses.field(default_factory=utcnow)
    updated_at: datetime.datetime | None = None
    # When a live migration left its source's queue and began.
    started_at: datetime.datetime | None = None
    memory_total_bytes: int = 0
    memory_processed_bytes: int = 0
    # An evacuation's source restarted its nova-compute meanwhile: its
    # guest destroyed, its allocation released.
    source_cleaned: bool = False


class NoEvents:
    """What the cloud tells when nobody listens."""

    def emit(self, event_type, publisher, **objects):
        pass


class Cloud:

    def __init__(self, bandwidth_mb_per_s=1000.0, events=None,
                 evacuate_seconds=EVACUATE_SECONDS,
                 power_seconds=POWER_SECONDS, boot_seconds=BOOT_SECONDS,
                 service_down_time=0.0,
                 max_concurrent_live_migrations=MAX_CONCURRENT_LIVE_MIGRATIONS,
                 rpc_response_timeout=RPC_RESPONSE_TIMEOUT):
        self.lock = threading.RLock()
        self.hosts = {}
        # name -> aggregates.Aggregate; the members are the hosts naming it.
        self.aggregates = {}
        self.flavors = {}
        self.servers = {}
        self.by_host = ServersByHost()
        # Creation order, for Nova's default sort (newest first) and paging.
        self.order = []
        self.migrations = {}
        self._migration_ids = itertools.count(1)
        self._hypervisor_ids = itertools.count(1)
        self.bandwidth_mb_per_s = bandwidth_mb_per_s
        self.evacuate_seconds = evacuate_seconds
        self.power_seconds = power_seconds
        self.boot_seconds = boot_seconds
        self.service_down_time = service_down_time
        self.rpc_response_timeout = rpc_response_timeout
        # The calls nova-api made to a nova-compute that never answered:
        # {host, method, at}, as Nova logs each one.
        self.rpc_timeouts = []
        # Seconds a shelve's snapshot upload takes (0: done at once).
        self.shelve_seconds = 0.0
        self.max_concurrent_live_migrations = max_concurrent_live_migrations
        # source host -> its live migrations running, and those queued
        # (server, migration, whether it is to fail), oldest first.
        self._live_running = collections.Counter()
        self._live_queued = collections.defaultdict(collections.deque)
        # Evacuations that started a server on their destination while
        # its guest still ran on the source (evacuation.py).
        self.split_brain = []
        self.events = events or NoEvents()
        self.faults = None       # faults.Faults, set by the server
        self.timers = set()
        self.api_host = 'controller'
        # block_storage.BlockStorage (Cinder), set by the scenario.
        self.storage = None
        # id -> server_groups.ServerGroup (Nova's os-server-groups).
        self.server_groups = {}

    # Building the cloud (scenarios).

    def add_host(self, host):
        with self.lock:
            host.hypervisor_id = next(self._hypervisor_ids)
            host.service_down_time = self.service_down_time
            self.hosts[host.name] = host

    def add_flavor(self, flavor):
        with self.lock:
            self.flavors[flavor.id] = flavor

    def add_server(self, server):
        with self.lock:
            self.servers[server.uuid] = server
            self.by_host.add(server)
            self.order.append(server.uuid)

    # Reading.

    def server(self, uuid):
        found = self.servers.get(uuid)
        if found is None:
            raise Refused(404, 'Instance %s could not be found.' % uuid)
        return found

    def host(self, name):
        found = self.hosts.get(name)
        if found is None:
            raise Refused(404, 'Compute host %s could not be found.' % name)
        return found

    def flavor(self, ident):
        found = self.flavors.get(str(ident))
        if found is None:
            for flavor in self.flavors.values():
                if flavor.name == ident:
                    return flavor
            raise Refused(404, 'Flavor %s could not be found.' % ident)
        return found

    def _near(self, host):
        """The servers whose host or resize source is ``host``."""
        with self.lock:
            return [self.servers[uuid]
                    for uuid in sorted(self.by_host.uuids(host))]

    def servers_on(self, host):
        return [s for s in self._near(host) if s.host == host
                or (s.source_host == host and s.vm_state == 'resized')]

    def used(self, host):
        """What placement counts as allocated on ``host``."""
        totals = dict.fromkeys(RESOURCES, 0)
        for server in self._near(host):
            for needs in self.allocations_on(server, host):
                for resource, amount in needs.items():
                    totals[resource] += amount
        return totals

    def allocations_on(self, server, host):
        """What ``server`` holds on ``host`` in Placement, one amount per
        flavor (a resize holds both)."""
        held = []
        if (server.host == host or server.evacuating_to == host
                or host in server.left_on):
            held.append(server.needs())
        if (server.source_host == host and server.vm_state == 'resized'
                and server.old_flavor is not None):
            held.append(server.needs(server.old_flavor))
        return held

    def fits(self, host, needs):
        used = self.used(host.name)
        return all(used[r] + needs[r] <= host.capacity(r)
                   for r in RESOURCES)

    def _schedule(self, needs, exclude=(), zone=None, group=None,
                  moving=None):
        """A host with room for ``needs``, enabled and up, where the
        server group ``group`` lets its member ``moving`` (None: a new
        one) be (the scheduler)."""
        for host in sorted(self.hosts.values(),
                           key=lambda h: (self.used(h.name)['memory_mb'],
                                          h.name)):
            if (host.name in exclude or host.status != 'enabled'
                    or host.state != 'up' or host.reserved
                    or (zone and host.availability_zone != zone)
                    or not server_groups.allows(self, group, host.name,
                                                moving)):
                continue
            if self.fits(host, needs):
                return host
        raise Refused(400, 'No valid host was found. There are not enough '
                           'hosts available.')

    def _check_destination(self, name, needs, source, zone=None):
        """The host ``name``, if the scheduler lets a server needing
        ``needs`` (and asking for the availability zone ``zone``) move
        there from ``source``."""
        host = self.hosts.get(name)
        if host is None:
            raise Refused(400, 'Compute host %s could not be found.' % name)
        if name == source:
            raise Refused(400, 'The target host %s is the host the instance '
                               'is on.' % name)
        if host.status != 'enabled' or host.state != 'up':
            raise Refused(400, 'Compute service of %s is unavailable at '
                               'this time.' % name)
        if zone and host.availability_zone != zone:
            raise Refused(400, 'No valid host was found. %s is not in the '
                               'availability zone %s.' % (name, zone))
        if not self.fits(host, needs):
            raise Refused(400, 'No valid host was found. Unable to migrate '
                               'instance to %s: not enough resources.'
                          % name)
        return host

    # Changing.

    def _touch(self, server):
        server.updated_at = utcnow()

    def _require(self, server, action, states=('active',), task=None):
        if server.locked:
            raise Refused(409, 'Instance %s is locked' % server.uuid)
        if server.vm_state not in states or server.task_state != task:
            raise Refused(409, "Cannot '%s' instance %s while it is in "
                               "vm_state %s" % (action, server.uuid,
                                                server.vm_state))

    def _emit(self, event_type, server=None, publisher=None, **extra):
        """Notify ``event_type``, published by the nova-compute of
        ``publisher`` (default: the server's host), or by nova-api when
        ``publisher`` is 'api' or the server has no host, or by
        nova-conductor when it is 'conductor'."""
        host = publisher or (server.host if server else None)
        if host in (None, 'api'):
            publisher_id = 'nova-api:%s' % self.api_host
        elif host == 'conductor':
            publisher_id = 'nova-conductor:%s' % self.api_host
        else:
            publisher_id = 'nova-compute:%s' % host
        self.events.emit(event_type, publisher_id, server=server, **extra)

    def _later(self, seconds, func, *args):
        timer = threading.Timer(seconds, self._run_later, (func, args))
        timer.daemon = True
        self.timers.add(timer)
        timer.start()

    def _run_later(self, func, args):
        with self.lock:
            func(*args)

    def _migration(self, server, kind, dest, new_flavor=None,
                   status='running'):
        migration = Migration(
            id=next(self._migration_ids), uuid=str(uuidlib.uuid4()),
            server_uuid=server.uuid, source=server.host, dest=dest,
            kind=kind, status=status,
            old_flavor_id=server.flavor.id,
            new_flavor_id=(new_flavor or server.flavor).id,
            memory_total_bytes=server.flavor.ram * 2 ** 20)
        self.migrations[migration.id] = migration
        return migration

    def _migration_seconds(self, server):
        return server.flavor.ram / self.bandwidth_mb_per_s

    def create_server(self, name, flavor_ref, zone=None, metadata=None,
                      tenant_id='admin', user_id='admin', key_name=None,
                      host=None, root_volume=None, group=None):
        """``group``: the server group (its id) the server joins (the
        scheduler hint); a forced ``host`` bypasses its policy, as it
        bypasses Nova's filters."""
        with self.lock:
            flavor = self.flavor(flavor_ref)
            group = server_groups.get(self, group) if group else None
            needs = flavor.needs(volume_backed=root_volume is not None)
            target = (self._check_destination(host, needs, None) if host
                      else self._schedule(needs, zone=zone, group=group))
            now = utcnow()
            server = Server(uuid=str(uuidlib.uuid4()), name=name,
                            flavor=flavor, host=None, tenant_id=tenant_id,
                            user_id=user_id, vm_state='building',
                            power_state=0, task_state='scheduling',
                            metadata=dict(metadata or {}), key_name=key_name,
                            availability_zone=target.availability_zone,
                            pinned_availability_zone=zone, created_at=now,
                            root_volume=root_volume)
            self.add_server(server)
            if group is not None:
                group.members.append(server.uuid)
            self._emit('instance.update', server, old_state='building',
                       old_task_state='scheduling')
            server.host = target.name
            server.task_state = None
            self._emit('instance.create.start', server)
            server.vm_state, server.power_state = 'active', 1
            server.launched_at = now
            self._touch(server)
            self._emit('instance.create.end', server)
            return server

    def delete_server(self, uuid):
        with self.lock:
            server = self.server(uuid)
            if server.locked:
                raise Refused(409, 'Instance %s is locked' % uuid)
            server.task_state = 'deleting'
            self._emit('instance.delete.start', server)
            server.vm_state, server.task_state = 'deleted', None
            server.power_state = 0
            self._emit('instance.delete.end', server)
            del self.servers[uuid]
            self.by_host.remove(server)
            server_groups.forget(self, uuid)
            if self.storage is not None:
                # Nova deletes the server's volume attachments.
                self.storage.server_deleted(uuid)

    def live_migrate(self, uuid, host=None, block_migration='auto',
                     async_=True):
        """``async_`` (compute 2.34 and later): the conductor's
        scheduling failures end the migration in error after the API
        accepted it, instead of a 400."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'os-migrateLive',
                          states=('active', 'paused'))
            group = server_groups.of(self, uuid)
            dest = (self._check_destination(host, server.needs(),
                                            server.host)
                    if host else self._schedule(server.needs(),
                                                exclude=(server.host,),
                                                group=group, moving=uuid))
            if not server_groups.allows(self, group, dest.name, uuid):
                return self._no_valid_host_for_group(server, dest, group,
                                                     async_)
            source = self.hosts[server.host]
            if source.state != 'up':
                raise Refused(400, 'Compute service of %s is unavailable at '
                                   'this time.' % source.name)
            migration = self._migration(server, 'live-migration', dest.name,
                                        status='queued')
            server.task_state = 'migrating'
            self._touch(server)
            fail = self.faults.take_migration_failure(uuid) \
                if self.faults else False
            self._live_queued[source.name].append((server, migration, fail))
            self._start_live_migrations(source.name)
            return migration

    def _start_live_migrations(self, source):
        """Start the live migrations queued on ``source`` while it runs
        fewer than max_concurrent_live_migrations."""
        limit = self.max_concurrent_live_migrations
        queued = self._live_queued[source]
        while queued and (not limit or self._live_running[source] < limit):
            server, migration, fail = queued.popleft()
            if (migration.status != 'queued'
                    or self.servers.get(server.uuid) is not server):
                # Aborted, or the server deleted, while it waited.
                continue
            self._live_running[source] += 1
            migration.status = 'running'
            migration.started_at = migration.updated_at = utcnow()
            self._emit('instance.live_migration_pre.start', server,
                       publisher=migration.dest)
            self._emit('instance.live_migration_pre.end', server,
                       publisher=migration.dest)
            self._later(self._migration_seconds(server),
                        self._finish_live_migration, server, migration,
                        fail)

    def _live_migration_ended(self, migration):
        """A running live migration ended (completed, failed, aborted):
        its source's next queued one may start."""
        self._live_running[migration.source] -= 1
        self._start_live_migrations(migration.source)

    def _finish_live_migration(self, server, migration, fail):
        if migration.status != 'running':
            # Aborted meanwhile (its end counted then).
            return
        if self.servers.get(server.uuid) is not server:
            # Deleted while it migrated.
            migration.status = 'error'
            self._live_migration_ended(migration)
            return
        if fail:
            migration.status = 'error'
            self._roll_back_live_migration(server, migration)
            self._live_migration_ended(migration)
            return
        migration.memory_processed_bytes = migration.memory_total_bytes
        self._emit('instance.live_migration_post.start', server)
        self._emit('instance.live_migration_post_dest.start', server,
                   publisher=migration.dest)
        server.host = migration.dest
        server.task_state = None
        self._touch(server)
        self._emit('instance.live_migration_post_dest.end', server)
        migration.status = 'completed'
        migration.updated_at = utcnow()
        # The source reports last, still naming itself (as Nova does).
        moved_host, server.host = server.host, migration.source
        server.task_state = 'migrating'
        self._emit('instance.live_migration_post.end', server)
        server.host, server.task_state = moved_host, None
        self._live_migration_ended(migration)

    def _roll_back_live_migration(self, server, migration):
        self._emit('instance.live_migration_rollback.start', server)
        server.task_state = None
        self._touch(server)
        migration.updated_at = utcnow()
        self._emit('instance.live_migration_rollback.end', server)
        self._emit('instance.live_migration_rollback_dest.start', server,
                   publisher=migration.dest)
        self._emit('instance.live_migration_rollback_dest.end', server,
                   publisher=migration.dest)

    def _no_valid_host_for_group(self, server, dest, group, async_):
        """The live migration of a member of ``group`` to ``dest``, which
        its policy forbids: NoValidHost in Nova's conductor. The
        migration ends in error, the server stays where it is."""
        message = ('No valid host was found. %s breaks the %s policy of '
                   'server group %s.' % (dest.name, group.policy, group.id))
        if not async_:
            raise Refused(400, message)
        migration = self._migration(server, 'live-migration', dest.name,
                                    status='error')
        migration.updated_at = utcnow()
        return migration

    def live_migrations_of(self, uuid):
        """The live migrations of a server still under way."""
        with self.lock:
            self.server(uuid)
            return [m for m in self.migrations.values()
                    if m.server_uuid == uuid and m.kind == 'live-migration'
                    and m.status in IN_PROGRESS]

    def abort_live_migration(self, uuid, migration_id, queued_too=True):
        """Stop a live migration under way; the server stays (or is
        back) on its source. ``queued_too``: one still queued (or
        preparing) may be aborted too (compute 2.65 and later)."""
        with self.lock:
            server = self.server(uuid)
            migration = self.migrations.get(migration_id)
            if (migration is None or migration.server_uuid != uuid
                    or migration.kind != 'live-migration'):
                raise Refused(404, 'Migration %s not found for instance %s'
                              % (migration_id, uuid))
            if migration.status not in (IN_PROGRESS if queued_too
                                        else ('running',)):
                raise Refused(400, 'Migration %s state of instance %s is %s.'
                                   ' Cannot abort live migration while the '
                                   'migration is in this state.'
                              % (migration_id, uuid, migration.status))
            self._emit('instance.live_migration_abort.start', server)
            running = migration.status == 'running'
            migration.status = 'cancelled'
            migration.updated_at = utcnow()
            if not running:
                # Taken off its source's queue before it began: nothing
                # to roll back on the destination.
                server.task_state = None
                self._touch(server)
                self._emit('instance.live_migration_abort.end', server)
                return
            self._emit('instance.live_migration_abort.end', server)
            self._roll_back_live_migration(server, migration)
            self._live_migration_ended(migration)

    def cold_migrate(self, uuid, host=None, flavor=None):
        """``migrate`` (same flavor) or ``resize`` (new flavor)."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'resize' if flavor else 'migrate',
                          states=('active', 'stopped'))
            new_flavor = self.flavor(flavor) if flavor else server.flavor
            if flavor and new_flavor.id == server.flavor.id:
                raise Refused(400, 'When resizing, instances must change '
                                   'flavor!')
            new_needs = server.needs(new_flavor)
            group = server_groups.of(self, uuid)
            dest = (self._check_destination(host, new_needs, server.host)
                    if host else self._schedule(new_needs,
                                                exclude=(server.host,),
                                                group=group, moving=uuid))
            if not server_groups.allows(self, group, dest.name, uuid):
                # Nova's conductor schedules a cold migration in the
                # API's call: NoValidHost is a 400.
                raise Refused(400, 'No valid host was found. %s breaks the '
                                   '%s policy of server group %s.'
                              % (dest.name, group.policy, group.id))
            migration = self._migration(
                server, 'resize' if flavor else 'migration', dest.name,
                new_flavor)
            server.task_state = 'resize_prep'
            self._emit('instance.resize_prep.start', server)
            self._emit('instance.resize_prep.end', server)
            server.task_state = 'resize_migrating'
            self._emit('instance.resize.start', server)
            self._later(self._migration_seconds(server),
                        self._finish_cold_migration, server, migration,
                        new_flavor)
            return migration

    def _finish_cold_migration(self, server, migration, new_flavor):
        if self.servers.get(server.uuid) is not server:
            return
        server.source_host, server.host = server.host, migration.dest
        server.old_flavor, server.flavor = server.flavor, new_flavor
        server.task_state = 'resize_migrated'
        self._emit('instance.resize.end', server,
                   publisher=migration.source)
        server.task_state = 'resize_finish'
        self._emit('instance.resize_finish.start', server)
        server.vm_state, server.task_state = 'resized', None
        migration.status = 'finished'
        self._touch(server)
        self._emit('instance.resize_finish.end', server)

    def confirm_resize(self, uuid):
        with self.lock:
            server = self.server(uuid)
            if server.vm_state != 'resized':
                raise Refused(409, "Cannot 'confirmResize' instance %s "
                                   "while it is in vm_state %s"
                              % (uuid, server.vm_state))
            source = server.source_host
            self._emit('instance.resize_confirm.start', server,
                       publisher=source)
            server.vm_state = self._resting_state(server)
            server.old_flavor = server.source_host = None
            for migration in self.migrations.values():
                if (migration.server_uuid == uuid
                        and migration.status == 'finished'):
                    migration.status = 'confirmed'
            self._touch(server)
            self._emit('instance.resize_confirm.end', server,
                       publisher=source)

    @staticmethod
    def _resting_state(server):
        """Where a confirmed or reverted resize leaves a server: running
        if it ran before, stopped if it was stopped (power state 4,
        shutdown)."""
        return 'active' if server.power_state == 1 else 'stopped'

    def revert_resize(self, uuid):
        with self.lock:
            server = self.server(uuid)
            if server.vm_state != 'resized':
                raise Refused(409, "Cannot 'revertResize' instance %s "
                                   "while it is in vm_state %s"
                              % (uuid, server.vm_state))
            self._emit('instance.resize_revert.start', server)
            server.host, server.source_host = server.source_host, None
            server.flavor, server.old_flavor = server.old_flavor, None
            server.vm_state = self._resting_state(server)
            self._touch(server)
            self._emit('instance.resize_revert.end', server)

    def power(self, uuid, on):
        with self.lock:
            server = self.server(uuid)
            if on:
                self._require(server, 'start', states=('stopped',))
                self._emit('instance.power_on.start', server)
                server.vm_state, server.power_state = 'active', 1
                self._emit('instance.power_on.end', server)
            else:
                self._require(server, 'stop')
                self._emit('instance.power_off.start', server)
                server.vm_state, server.power_state = 'stopped', 4
                self._emit('instance.power_off.end', server)
            self._touch(server)

    def pause(self, uuid, paused):
        with self.lock:
            server = self.server(uuid)
            if paused:
                self._require(server, 'pause')
                self._emit('instance.pause.start', server)
                server.vm_state, server.power_state = 'paused', 3
                self._emit('instance.pause.end', server)
            else:
                self._require(server, 'unpause', states=('paused',))
                self._emit('instance.unpause.start', server)
                server.vm_state, server.power_state = 'active', 1
                self._emit('instance.unpause.end', server)
            self._touch(server)

    def suspend(self, uuid, suspended):
        """Nova's suspend (from ACTIVE: the guest's memory saved, power
        state SUSPENDED) and resume."""
        with self.lock:
            server = self.server(uuid)
            if suspended:
                self._require(server, 'suspend')
                self._emit('instance.suspend.start', server)
                server.vm_state, server.power_state = 'suspended', 7
                self._emit('instance.suspend.end', server)
            else:
                self._require(server, 'resume', states=('suspended',))
                self._emit('instance.resume.start', server)
                server.vm_state, server.power_state = 'active', 1
                self._emit('instance.resume.end', server)
            self._touch(server)

    def reset_state(self, uuid, state):
        """Nova's os-resetState: the vm_state set to ``state`` (active or
        error) and the task cleared, whatever the server was doing, its
        host up or not, locked or not; the power state stays."""
        with self.lock:
            server = self.server(uuid)
            old_state, old_task_state = server.vm_state, server.task_state
            server.vm_state, server.task_state = state, None
            self._touch(server)
            self._emit('instance.update', server, publisher='api',
                       old_state=old_state, old_task_state=old_task_state)

    def shelve(self, uuid):
        """Nova's shelve: a snapshot uploaded (``shelve_seconds``), the
        guest powered off (SHELVED), then offloaded at once (Nova's
        shelved_offload_time 0): its host released, SHELVED_OFFLOADED."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'shelve', states=SHELVABLE)
            server.task_state = 'shelving'
            self._touch(server)
            self._emit('instance.shelve.start', server)
            if self.shelve_seconds:
                server.task_state = 'shelving_image_uploading'
                self._later(self.shelve_seconds, self._finish_shelve, server)
            else:
                self._finish_shelve(server)

    def _finish_shelve(self, server):
        if self.servers.get(server.uuid) is not server:
            return      # deleted meanwhile
        server.vm_state, server.power_state = 'shelved', 4
        server.task_state = None
        self._emit('instance.shelve.end', server)
        server.task_state = 'shelving_offloading'
        self._emit('instance.shelve_offload.start', server)
        source = server.host
        server.vm_state, server.host = 'shelved_offloaded', None
        server.task_state = None
        self._touch(server)
        self._emit('instance.shelve_offload.end', server, publisher=source)

    def unshelve(self, uuid):
        """A SHELVED server is powered on where it is (Nova's conductor
        starts it); a SHELVED_OFFLOADED one is scheduled and spawned."""
        with self.lock:
            server = self.server(uuid)
            self._require(server, 'unshelve',
                          states=('shelved', 'shelved_offloaded'))
            if server.vm_state == 'shelved':
                server.task_state = 'powering-on'
                self._emit('instance.power_on.start', server)
                server.vm_state, server.power_state = 'active', 1
                server.task_state = None
                self._touch(server)
                self._emit('instance.power_on.end', server)
                return
            server.task_state = 'unshelving'
            dest = self._schedule(server.needs())
            self._emit('instance.unshelve.start', server, publisher=dest.name)
            server.host = dest.name
            server.vm_state, server.power_state = 'active', 1
            server.task_state = None
            self._touch(server)
            self._emit('instance.unshelve.end', server)

    def lock_server(self, uuid, locked, reason=None):
        with self.lock:
            server = self.server(uuid)
            server.locked = locked
            server.locked_reason = reason if locked else None
            self._touch(server)
            self._emit('instance.lock' if locked else 'instance.unlock',
                       server, publisher='api')

    def update_service(self, host_name, status=None, disabled_reason=None,
                       forced_down=None):
        """Change the host's compute service as nova-api does: the
        record first (with its service.update notification); then, if the
        request set a status (changed or not: Nova syncs the
        COMPUTE_STATUS_DISABLED trait of the host's provider whenever the
        field is written), a call to the host's nova-compute
        (set_host_enabled), made only while Nova counts the service up.
        Forced down (by this very request too), it is down: no call. A
        nova-compute that does not run, or cannot reach the bus, never
        answers: nova-api logs the timeout after rpc_response_timeout and
        then answers the request as if all went well. Returns the host
        and how long the request waits for that answer (0: no call, or
        one answered at once)."""
        with self.lock:
            host = self.host(host_name)
            if forced_down is False:
                self._check_for_evacuations(host)
            if status is not None:
                host.status = status
                host.disabled_reason = (disabled_reason
                                        if status == 'disabled' else None)
            if forced_down is not None:
                host.forced_down = forced_down
            host.updated_at = utcnow()
            self.events.emit('service.update', 'nova-compute:%s' % host.name,
                             host=host)
            if (status is None or host.state != 'up'
                    or host.reporting):
                return host, 0.0
            self.rpc_timeouts.append({'host': host.name,
                                      'method': 'set_host_enabled',
                                      'at': utcnow().isoformat()})
            return host, self.rpc_response_timeout

    def _check_for_evacuations(self, host):
        """Nova will not force a service back up while evacuations from
        its host are ``done``: its nova-compute has not restarted to
        destroy the guests left there and release their allocations."""
        if any(m.kind == 'evacuation' and m.source == host.name
               and m.status == 'done' for m in self.migrations.values()):
            raise Refused(400, 'Unable to force up host %s as `done` '
                               'evacuation migration records remain '
                               'associated with the host. Ensure the '
                               'compute service has been restarted, '
                               'allowing these records to move to '
                               '`completed` before retrying this request.'
                          % host.name)
