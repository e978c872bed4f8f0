"""The simulated Block Storage (Cinder): cinder-volume backends and their
pools, volume types, volumes and their attachments to the cloud's
servers, with Cinder's rules (doc/source/simulator.rst, "Block Storage
(Cinder)", lists what is served).

It works on the cloud (nova/cloud.py) and under its lock: an operation
either changes the storage or raises ``cloud.Refused`` with the status
and message Cinder gives. What takes time in Cinder (creating, deleting,
extending, migrating a volume) finishes later on the cloud's timers, each
step sending Cinder's notifications through ``events`` (see
notifications.py). Migrations and retypes are moves.py.
"""

import dataclasses
import itertools
import uuid as uuidlib

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator.cinder import notifications as notes
from watcher_ha.simulator.nova import hosts
from watcher_ha.simulator.nova import model as nova_model
from watcher_ha.simulator.nova import volumes as nova_volumes

Refused = nova_model.Refused

# Seconds each operation takes; a scenario's storage section sets others.
TIMINGS = {'volume_create_seconds': 1.0, 'volume_delete_seconds': 0.5,
           'volume_extend_seconds': 0.5,
           'volume_migration_seconds_per_gb': 0.05,
           # Cinder's scheduler and the completion of a migration.
           'volume_step_seconds': 0.2}
# The least a migration's copy takes, however small the volume.
MIN_COPY_SECONDS = 0.5
# Statuses Cinder deletes from, and migration statuses of a migration
# under way.
DELETABLE = ('available', 'error', 'error_restoring', 'error_extending',
             'error_managing')
MIGRATING = ('starting', 'migrating', 'completing')
# Server states in which Nova swaps a volume's data (its swap_volume).
SWAPPABLE_SERVER_STATES = ('active', 'paused', 'resized')


@dataclasses.dataclass
class Backend:
    """A cinder-volume service: ``host@name``."""
    host: str
    name: str
    zone: str
    service_uuid: str
    status: str = 'enabled'
    disabled_reason: str | None = None
    updated_at: object = dataclasses.field(
        default_factory=clock_mod.REAL.now)

    @property
    def service_host(self):
        return '%s@%s' % (self.host, self.name)


@dataclasses.dataclass
class Pool:
    backend: Backend
    name: str
    total_capacity_gb: float
    reserved_percentage: int = 0
    max_over_subscription_ratio: float = 20.0
    thin: bool = False

    @property
    def full_name(self):
        return '%s#%s' % (self.backend.service_host, self.name)


@dataclasses.dataclass
class VolumeType:
    id: str
    name: str
    extra_specs: dict
    description: str | None = None


@dataclasses.dataclass
class Attachment:
    id: str
    volume_id: str
    server_uuid: str
    status: str               # reserved, attaching, attached
    mode: str = 'rw'
    connector: dict | None = None
    attached_host: str | None = None
    attach_time: object = None
    mountpoint: str = '/dev/vdb'


@dataclasses.dataclass(frozen=True)
class Connection:
    """A guest that still reaches a volume whose attachment Cinder has
    deleted: the host never disconnected it (its nova-compute was cut off
    or dead when Nova deleted the server locally, or the attachment was
    deleted in Cinder alone). As with Ceph RBD, whose
    terminate_connection cuts nothing, the guest writes on until it
    dies: its host powered off or crashed (``power_epoch`` moved)."""
    volume_id: str
    server_uuid: str
    host: str
    power_epoch: int


@dataclasses.dataclass
class Volume:
    id: str
    name: str | None
    size: int
    type_id: str
    pool: str | None          # host@backend#pool
    project_id: str
    user_id: str
    status: str
    availability_zone: str
    description: str | None = None
    bootable: bool = False
    multiattach: bool = False
    metadata: dict = dataclasses.field(default_factory=dict)
    migration_status: str | None = None
    previous_status: str | None = None
    # The pool a migration under way copies the volume to: its size
    # counts there from the copy's start.
    migration_target: str | None = None
    attachments: list = dataclasses.field(default_factory=list)
    created_at: object = dataclasses.field(
        default_factory=clock_mod.REAL.now)
    updated_at: object = None
    launched_at: object = None


class BlockStorage:

    def __init__(self, cloud, timings=None):
        self.cloud = cloud
        self.lock = cloud.lock
        self.timings = dict(TIMINGS, **(timings or {}))
        self.backends = {}        # host@backend -> Backend
        self.pools = {}           # host@backend#pool -> Pool
        self.types = {}           # id -> VolumeType
        self.default_type = None  # its id
        self.volumes = {}         # id -> Volume
        self.order = []           # volume ids, creation order
        self.attachments = {}     # id -> Attachment
        # Guests still connected to a volume Cinder counts detached from
        # them (Connection), and every moment a volume was writable by
        # two running guests at once: {volume, servers, at}.
        self.connections = []
        self.shared_writes = []
        # Every attachment completed (a volume attached to a server):
        # {attachment, volume, server, host, at}. Cinder keeps its
        # attachments' rows, with their attach_time, after they are
        # deleted.
        self.attaches = []
        # Every migration and retype asked for (moves.Move).
        self.moves = []
        self.move_ids = itertools.count(1)
        self.events = notes.NoEvents()
        self.faults = None

    @property
    def scheduler_host(self):
        return self.cloud.api_host

    # Reading.

    def volume(self, ident):
        found = self.volumes.get(ident)
        if found is None:
            raise Refused(404, 'Volume %s could not be found.' % ident)
        return found

    def volume_type(self, ref):
        """A type by id, else by name."""
        found = self.types.get(ref)
        if found is None:
            for volume_type in self.types.values():
                if volume_type.name == ref:
                    return volume_type
            raise Refused(404, 'Volume type with name %s could not be '
                               'found.' % ref)
        return found

    def attachment(self, ident):
        found = self.attachments.get(ident)
        if found is None:
            raise Refused(404, 'Volume attachment could not be found with '
                               'filter: attachment_id = %s.' % ident)
        return found

    def backend_state(self, backend):
        down = self.faults.storage_backends_down if self.faults else ()
        return 'down' if ({backend.service_host, '*'} & set(down)) \
            else 'up'

    def usable(self, backend):
        """Whether the scheduler sends volumes to ``backend``."""
        return (backend.status == 'enabled'
                and self.backend_state(backend) == 'up')

    def allocated(self, pool):
        """(GiB allocated, volumes) on ``pool``: its volumes, and those
        being copied to it."""
        size = count = 0
        for volume in self.volumes.values():
            if volume.pool == pool.full_name:
                size += volume.size
                count += 1
            elif volume.migration_target == pool.full_name:
                size += volume.size
        return size, count

    def free(self, pool):
        return pool.total_capacity_gb - self.allocated(pool)[0]

    def virtual_free(self, pool):
        """What Cinder's scheduler reckons still fits in ``pool``."""
        allocated = self.allocated(pool)[0]
        reserved = pool.total_capacity_gb * pool.reserved_percentage / 100.0
        if pool.thin:
            return (pool.total_capacity_gb
                    * pool.max_over_subscription_ratio
                    - allocated - reserved)
        return pool.total_capacity_gb - allocated - reserved

    def capabilities(self, pool):
        allocated, count = self.allocated(pool)
        backend = pool.backend
        return {
            'pool_name': pool.name,
            'volume_backend_name': backend.name,
            'total_capacity_gb': float(pool.total_capacity_gb),
            'free_capacity_gb': float(pool.total_capacity_gb - allocated),
            'allocated_capacity_gb': float(allocated),
            'provisioned_capacity_gb': float(allocated),
            'reserved_percentage': pool.reserved_percentage,
            'max_over_subscription_ratio':
                float(pool.max_over_subscription_ratio),
            'thin_provisioning_support': pool.thin,
            'thick_provisioning_support': not pool.thin,
            'total_volumes': count,
            'multiattach': True,
            'QoS_support': False,
            'storage_protocol': 'iSCSI',
            'vendor_name': 'Open Source',
            'driver_version': '3.0.0',
            'location_info': 'LVMVolumeDriver:%s:%s:%s:0' % (
                backend.host, pool.name, 'thin' if pool.thin else 'default'),
            'timestamp': notes.api_time(self.cloud.clock.now()),
        }

    def fits(self, volume_type, pool):
        """Whether a volume of ``volume_type`` may live in ``pool``: each
        extra spec the pool reports has the type's value (Cinder's
        capabilities filter; volume_backend_name is the usual one)."""
        capabilities = self.capabilities(pool)
        for key, wanted in volume_type.extra_specs.items():
            have = capabilities.get(key)
            if have is not None and str(have) != str(wanted):
                return False
        return True

    def schedule(self, volume_type, size, zone=None, exclude=()):
        """The pool Cinder's scheduler picks: of a usable backend, in
        ``zone`` if given, fitting the type, with room; the most virtual
        free space first. None when none does."""
        candidates = [
            pool for pool in self.pools.values()
            if pool.full_name not in exclude and self.usable(pool.backend)
            and (zone is None or pool.backend.zone == zone)
            and self.fits(volume_type, pool)
            and self.virtual_free(pool) >= size]
        if not candidates:
            return None
        return max(candidates, key=lambda p: (self.virtual_free(p),
                                              p.full_name))

    def pool_of(self, volume):
        return self.pools.get(volume.pool) if volume.pool else None

    # Notifying.

    def notify(self, event_type, volume, **extra):
        pool = self.pool_of(volume)
        publisher = 'volume.%s' % (pool.backend.service_host if pool
                                   else self.scheduler_host)
        self.events.emit(event_type, publisher,
                         notes.volume_payload(self, volume, **extra))

    def notify_capacity(self, *pool_names):
        for name in sorted(set(n for n in pool_names if n)):
            pool = self.pools.get(name)
            if pool is not None:
                self.events.emit('capacity.pool',
                                 'capacity.%s' % self.scheduler_host,
                                 notes.capacity_payload(self, pool))

    def touch(self, volume):
        volume.updated_at = self.cloud.clock.now()

    # Volumes.

    def create_volume(self, size, name=None, description=None,
                      type_ref=None, zone=None, metadata=None,
                      multiattach=False, bootable=False,
                      project_id='admin-project', user_id='admin-user'):
        with self.lock:
            if (not isinstance(size, int) or isinstance(size, bool)
                    or size < 1):
                raise Refused(400, "Invalid input for field/attribute size. "
                                   "Value: %s. %r is not a positive integer"
                              % (size, size))
            volume_type = self.volume_type(type_ref or self.default_type)
            zones = {b.zone for b in self.backends.values()}
            if zone is not None and zone not in zones:
                raise Refused(400, "Availability zone '%s' is invalid."
                              % zone)
            pool = self.schedule(volume_type, size, zone=zone)
            volume = Volume(
                id=str(uuidlib.uuid4()), name=name, size=size,
                created_at=self.cloud.clock.now(),
                type_id=volume_type.id,
                pool=pool.full_name if pool else None,
                project_id=project_id, user_id=user_id,
                status='creating' if pool else 'error',
                availability_zone=(pool.backend.zone if pool
                                   else zone or sorted(zones or ['nova'])[0]),
                description=description, bootable=bool(bootable),
                multiattach=bool(multiattach),
                metadata=dict(metadata or {}))
            self.add_volume(volume)
            if pool is None:
                # No valid backend: the scheduler sets it in error.
                return volume
            self.notify('volume.create.start', volume)
            self.cloud._later(self.timings['volume_create_seconds'],
                              self._created, volume)
            return volume

    def add_volume(self, volume):
        volume.updated_at = volume.updated_at or volume.created_at
        self.volumes[volume.id] = volume
        self.order.append(volume.id)

    def _created(self, volume):
        if self.volumes.get(volume.id) is not volume:
            return
        volume.status = 'available'
        volume.launched_at = self.cloud.clock.now()
        self.touch(volume)
        self.notify('volume.create.end', volume)
        self.notify_capacity(volume.pool)

    def delete_volume(self, ident):
        with self.lock:
            volume = self.volume(ident)
            if (volume.status not in DELETABLE or volume.attachments
                    or volume.migration_status in MIGRATING):
                raise Refused(400, 'Invalid volume: Volume status must be '
                                   'available or error or error_restoring '
                                   'or error_extending or error_managing '
                                   'and must not be migrating, attached, '
                                   'belong to a group, have snapshots, '
                                   'awaiting a transfer, or be '
                                   'disassociated from snapshots after '
                                   'volume transfer.')
            volume.status = 'deleting'
            self.touch(volume)
            self.notify('volume.delete.start', volume)
            self.cloud._later(self.timings['volume_delete_seconds'],
                              self._deleted, volume)

    def _deleted(self, volume):
        if self.volumes.pop(volume.id, None) is None:
            return
        self.order.remove(volume.id)
        self.notify('volume.delete.end', volume)
        self.notify_capacity(volume.pool)

    def extend(self, ident, new_size, in_use_allowed):
        with self.lock:
            volume = self.volume(ident)
            allowed = ('available', 'in-use') if in_use_allowed \
                else ('available',)
            if volume.status not in allowed:
                raise Refused(400, "Invalid volume: Volume status must be "
                                   "'available' or 'in-use' (3.42+) to "
                                   "extend, currently %s." % volume.status)
            if (not isinstance(new_size, int) or isinstance(new_size, bool)
                    or new_size <= volume.size):
                raise Refused(400, 'Invalid input received: New size for '
                                   'extend must be greater than current '
                                   'size. (current: %s, extended: %s).'
                              % (volume.size, new_size))
            volume.previous_status = volume.status
            volume.status = 'extending'
            self.touch(volume)
            self.notify('volume.resize.start', volume)
            self.cloud._later(self.timings['volume_extend_seconds'],
                              self._extended, volume, new_size)

    def _extended(self, volume, new_size):
        if self.volumes.get(volume.id) is not volume:
            return
        pool = self.pool_of(volume)
        if pool is None or self.virtual_free(pool) < new_size - volume.size:
            volume.status = 'error_extending'
            self.touch(volume)
            return
        volume.size = new_size
        volume.status = volume.previous_status
        self.touch(volume)
        self.notify('volume.resize.end', volume, size=new_size)
        self.notify_capacity(volume.pool)

    # Attachments (the API of 3.27 and later).

    def attach(self, volume_id, server_uuid, connector=None, mode='rw'):
        with self.lock:
            volume = self.volume(volume_id)
            server = self.cloud.server(server_uuid)
            if not (volume.status == 'available' or (
                    volume.multiattach and volume.status == 'in-use')):
                raise Refused(400, 'Invalid volume: Volume %s status must '
                                   'be available or downloading to reserve, '
                                   'but the current status is %s.'
                              % (volume.id, volume.status))
            attachment = Attachment(
                id=str(uuidlib.uuid4()), volume_id=volume.id,
                server_uuid=server.uuid, mode=mode or 'rw',
                status='attaching' if connector else 'reserved',
                connector=connector, attached_host=server.host)
            self.attachments[attachment.id] = attachment
            volume.attachments.append(attachment)
            if volume.status == 'available':
                volume.status = attachment.status
            self.touch(volume)
            return attachment

    def connect(self, ident, connector):
        with self.lock:
            attachment = self.attachment(ident)
            attachment.connector = dict(connector)
            if attachment.status == 'reserved':
                attachment.status = 'attaching'
            volume = self.volume(attachment.volume_id)
            if volume.status == 'reserved':
                volume.status = 'attaching'
            self.touch(volume)
            return attachment

    def complete(self, ident):
        with self.lock:
            attachment = self.attachment(ident)
            volume = self.volume(attachment.volume_id)
            self.notify('volume.attach.start', volume)
            attachment.status = 'attached'
            attachment.attach_time = self.cloud.clock.now()
            server = self.cloud.servers.get(attachment.server_uuid)
            attachment.attached_host = server.host if server else None
            volume.status = 'in-use'
            self.touch(volume)
            self.notify('volume.attach.end', volume)
            self.attaches.append({
                'attachment': attachment.id, 'volume': volume.id,
                'server': attachment.server_uuid,
                'host': attachment.attached_host,
                'at': attachment.attach_time.isoformat()})
            writers = self.writers(volume.id)
            if len(writers) > 1:
                self.shared_writes.append({
                    'volume': volume.id, 'servers': writers,
                    'multiattach': volume.multiattach,
                    'at': self.cloud.clock.now().isoformat()})

    def writers(self, volume_id):
        """The servers whose running guests can write to the volume now,
        sorted: those attached to it, and those still connected after
        their attachment was deleted."""
        found = set()
        volume = self.volumes.get(volume_id)
        for attachment in (volume.attachments if volume else ()):
            server = self.cloud.servers.get(attachment.server_uuid)
            host = self.cloud.hosts.get(server.host) if server and \
                server.host else None
            if attachment.status == 'attached' and host is not None \
                    and hosts.guest_running(host, server):
                found.add(server.uuid)
        self.connections = [c for c in self.connections if self._live(c)]
        found.update(c.server_uuid for c in self.connections
                     if c.volume_id == volume_id)
        return sorted(found)

    def _live(self, connection):
        host = self.cloud.hosts.get(connection.host)
        return (host is not None and host.powered_on
                and host.compute_running
                and host.power_epoch == connection.power_epoch)

    def detach(self, ident, disconnected=False, guest_running=None):
        """Delete an attachment; the volume's remaining ones.
        ``disconnected``: the server's host took the volume away from its
        guest first (Nova's detach through a running nova-compute);
        otherwise a guest that runs (``guest_running``, default: as its
        server's record says) keeps reaching the volume."""
        with self.lock:
            attachment = self.attachment(ident)
            volume = self.volume(attachment.volume_id)
            attached = attachment.status == 'attached'
            if attached and not disconnected:
                self._keep_connection(attachment, guest_running)
            if attached:
                volume.status = 'detaching'
                self.notify('volume.detach.start', volume)
            del self.attachments[attachment.id]
            volume.attachments.remove(attachment)
            if volume.migration_status not in MIGRATING:
                volume.status = ('in-use' if any(
                    a.status == 'attached' for a in volume.attachments)
                    else 'available')
            self.touch(volume)
            if attached:
                self.notify('volume.detach.end', volume)
            return list(volume.attachments)

    def server_deleted(self, server_uuid, disconnected=True,
                       guest_running=None):
        """Nova deletes a server's attachments as it deletes it (see
        ``detach`` for the two flags)."""
        with self.lock:
            for attachment in [a for a in self.attachments.values()
                               if a.server_uuid == server_uuid]:
                self.detach(attachment.id, disconnected, guest_running)

    def server_deleted_refused(self, server_uuid, disconnected=True,
                               guest_running=None):
        """Nova deleted a server but Cinder refused to delete its
        attachments (no service token): they stay, and a guest its host
        did not disconnect keeps reaching the volume."""
        with self.lock:
            for attachment in [a for a in self.attachments.values()
                               if a.server_uuid == server_uuid]:
                if attachment.status == 'attached' and not disconnected:
                    self._keep_connection(attachment, guest_running)

    def _keep_connection(self, attachment, guest_running):
        server = self.cloud.servers.get(attachment.server_uuid)
        host = self.cloud.hosts.get(server.host) if server and \
            server.host else None
        if host is None:
            return
        if guest_running is None:
            guest_running = hosts.guest_running(host, server)
        if guest_running:
            self.connections.append(Connection(
                attachment.volume_id, attachment.server_uuid, host.name,
                host.power_epoch))


def _number(item, key, default, kind=float):
    try:
        return kind(item.get(key, default))
    except (TypeError, ValueError):
        raise ValueError('%s of %s must be a number' % (key, item))


def build(spec, cloud, rng):
    """The BlockStorage a scenario's ``storage`` section describes (see
    scenario.py), on ``cloud``."""
    spec = spec or {}
    storage = BlockStorage(cloud, timings={
        key: float(spec[key]) for key in TIMINGS if key in spec})

    def uuid():
        return str(uuidlib.UUID(int=rng.getrandbits(128), version=4))

    for item in spec.get('backends') or ():
        backend = Backend(host=item['host'], name=item['backend'],
                          zone=item.get('zone', 'nova'),
                          service_uuid=uuid(),
                          status=item.get('status', 'enabled'),
                          updated_at=cloud.clock.now())
        storage.backends[backend.service_host] = backend
        for pool_spec in item.get('pools') or ({'name': item['backend'],
                                                'total_capacity_gb': 1000},):
            pool = Pool(
                backend=backend, name=pool_spec['name'],
                total_capacity_gb=_number(pool_spec, 'total_capacity_gb',
                                          1000),
                reserved_percentage=_number(pool_spec, 'reserved_percentage',
                                            0, int),
                max_over_subscription_ratio=_number(
                    pool_spec, 'max_over_subscription_ratio', 20.0),
                thin=bool(pool_spec.get('thin', False)))
            storage.pools[pool.full_name] = pool
    type_specs = spec.get('volume_types') or [
        {'name': '__DEFAULT__', 'extra_specs': {}}]
    for item in type_specs:
        volume_type = VolumeType(id=item.get('id') or uuid(),
                                 name=item['name'],
                                 extra_specs=dict(item.get('extra_specs')
                                                  or {}),
                                 description=item.get('description'))
        storage.types[volume_type.id] = volume_type
    default = spec.get('default_volume_type', type_specs[0]['name'])
    storage.default_type = storage.volume_type(default).id
    for index, item in enumerate(spec.get('volumes') or ()):
        _add_scenario_volume(storage, item, index, uuid)
    return storage


def _add_scenario_volume(storage, item, index, uuid):
    pool = storage.pools.get(item.get('pool'))
    if pool is None:
        raise ValueError('volume %s: unknown pool %s (pools: %s)'
                         % (item.get('name'), item.get('pool'),
                            ', '.join(sorted(storage.pools))))
    volume_type = storage.volume_type(item.get('type')
                                      or storage.default_type)
    now = storage.cloud.clock.now()
    volume = Volume(
        id=item.get('id') or uuid(), name=item.get('name',
                                                   'volume-%04d' % index),
        size=int(item['size']), type_id=volume_type.id,
        pool=pool.full_name, project_id=item.get('project', 'admin'),
        user_id=item.get('user', 'admin'),
        status=item.get('status', 'available'),
        availability_zone=pool.backend.zone,
        bootable=bool(item.get('bootable', False)),
        multiattach=bool(item.get('multiattach', False)),
        metadata=dict(item.get('metadata') or {}),
        created_at=now, updated_at=now, launched_at=now)
    storage.add_volume(volume)
    server_ref = item.get('attached_to')
    if server_ref:
        server = storage.cloud.servers.get(server_ref) or next(
            (s for s in storage.cloud.servers.values()
             if s.name == server_ref), None)
        if server is None:
            raise ValueError('volume %s: attached to an unknown server %s'
                             % (volume.name, server_ref))
        attachment = Attachment(
            id=uuid(), volume_id=volume.id, server_uuid=server.uuid,
            status='attached', attached_host=server.host, attach_time=now,
            connector=nova_volumes.connector(server.host))
        storage.attachments[attachment.id] = attachment
        volume.attachments.append(attachment)
        volume.status = 'in-use'
        # Nova's side of it: its block device mapping.
        storage.cloud._map(server, volume.id, attachment.id, None, None,
                           False)
