"""The storage collector: Cinder's volume backends, pools and volumes,
read from the Block Storage API, kept fresh by Cinder's notifications.

A full read asks, side by side, for the cinder-volume services (the
storage nodes, ``host@backend``), the volume types, the pools with their
capabilities (the scheduler's statistics) and every volume, page after
page. Between reads, Cinder's notifications change the model
(feed.cinder_events); what they name that the model cannot account for
(a pool whose allocation its volumes do not add up to: a migration,
which Cinder does not notify; an unknown pool or volume type) is read
again from the API at once.

Credentials and endpoint: ``[cinder]`` (see watcher_ha.cloud.clients).
"""

import dataclasses
from concurrent import futures

from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg
from oslo_log import log

from watcher_ha.cloud import clients
from watcher_ha.decision_engine.feed import cinder_events
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.model import storage_elements
from watcher_ha.decision_engine.model import storage_state
from watcher_ha.decision_engine.model.collector import base

CONF = cfg.CONF
LOG = log.getLogger(__name__)

CINDER_GROUP = 'cinder'
VOLUME_SERVICE = 'cinder-volume'
# Volumes asked for per page (Cinder cuts at its osapi_max_limit, 1,000
# by default, and links the next page while a page is full).
PAGE = 1000
READERS = 4


@dataclasses.dataclass(frozen=True)
class PoolRead:
    """A pool read again from the API: the pool (None if Cinder no
    longer has it), its backend's node, the volumes Cinder places there,
    and what became of the volumes the model had there and Cinder does
    not: read one by one (moved: a Volume; deleted: its uuid)."""
    name: str
    pool: storage_elements.Pool | None
    node: storage_elements.StorageNode | None
    volumes: tuple
    moved: tuple
    deleted: tuple
    stamp: object


class StorageCollector(base.Collector):
    name = 'storage'
    apply_event = staticmethod(cinder_events.apply)
    state_class = storage_state.StorageState

    def __init__(self, conf, model):
        super().__init__(conf, model)
        self._cinder = None

    def disabled_because(self):
        try:
            reason = clients.configured(self.conf, CINDER_GROUP)
        except cfg.NoSuchOptError:
            return ('this build has no [cinder] options (no Block '
                    'Storage client)')
        if reason:
            return reason + ': no Cinder endpoint to read volumes from'
        return None

    def cinder(self):
        """The Block Storage API client, made on first use (the engine
        starts without Cinder)."""
        if self._cinder is None:
            self._cinder = clients.cinder(self.conf)
        return self._cinder

    def _get(self, path, **params):
        return self.cinder().get(path, params=params or None).json()

    # Full read.

    def build(self, stamp):
        pool = futures.ThreadPoolExecutor(READERS,
                                          thread_name_prefix='full-sync')
        try:
            services = pool.submit(self._services)
            types = pool.submit(self._types)
            pools = pool.submit(self._pools)
            changes = storage_state.StorageState().changes()
            for volume_type in types.result():
                changes.put_volume_type(volume_type)
            known_types = changes.volume_types()
            for service in services.result():
                changes.put_node(self._node(service, known_types, stamp))
            for info in pools.result():
                changes.put_pool(self._pool(info, stamp))
            type_ids = _ids_by_name(known_types)
            for page in self._volume_pages():
                for info in page:
                    volume = self._volume(info, type_ids, stamp)
                    if volume.status not in storage_elements.GONE_STATUSES:
                        changes.put_volume(volume)
            return changes.state()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _services(self, host=None):
        params = {'binary': VOLUME_SERVICE}
        if host is not None:
            params['host'] = host
        return [service for service in self._get('/os-services',
                                                  **params)['services']
                if service.get('binary') == VOLUME_SERVICE]

    def _types(self):
        return [_volume_type(info)
                for info in self._get('/types')['volume_types']]

    def _pools(self, name=None):
        params = {'detail': 'true'}
        if name is not None:
            params['name'] = name
        return self._get('/scheduler-stats/get_pools', **params)['pools']

    def _volume_pages(self, **filters):
        """Every volume (of every project), a page at a time, following
        Cinder's next links."""
        params = dict(filters, all_tenants=1, limit=PAGE)
        while True:
            body = self._get('/volumes/detail', **params)
            volumes = body['volumes']
            yield volumes
            more = bool(volumes) and any(
                link.get('rel') == 'next'
                for link in body.get('volumes_links', ()))
            if not more:
                return
            params['marker'] = volumes[-1]['id']

    @staticmethod
    def _node(service, volume_types, stamp):
        host = service['host']
        backend = storage_elements.backend_name(host)
        return storage_elements.StorageNode(
            host=host, zone=service.get('zone'),
            status=service.get('status') or 'enabled',
            state=service.get('state') or 'up',
            volume_types=tuple(sorted(
                t.name for t in volume_types.values()
                if t.volume_backend_name == backend)),
            stamp=stamp)

    @staticmethod
    def _pool(info, stamp):
        caps = info.get('capabilities') or {}
        capacity = storage_elements.capacity
        total = capacity(caps.get('total_capacity_gb'))
        free = capacity(caps.get('free_capacity_gb'))
        provisioned = capacity(caps.get('provisioned_capacity_gb'))
        thin = bool(caps.get('thin_provisioning_support'))
        ratio = capacity(caps.get('max_over_subscription_ratio'))
        reserved = capacity(caps.get('reserved_percentage'))
        total_volumes = caps.get('total_volumes')
        return storage_elements.Pool(
            name=info['name'],
            total_capacity_gb=total, free_capacity_gb=free,
            allocated_capacity_gb=capacity(caps.get(
                'allocated_capacity_gb')),
            provisioned_capacity_gb=provisioned,
            virtual_free=_virtual_free(total, free, provisioned, thin,
                                       ratio, reserved),
            total_volumes=(int(total_volumes)
                           if isinstance(total_volumes, (int, float))
                           else None),
            volume_backend_name=caps.get('volume_backend_name'),
            storage_protocol=caps.get('storage_protocol'),
            vendor_name=caps.get('vendor_name'),
            driver_version=caps.get('driver_version'),
            thin_provisioning_support=thin,
            max_over_subscription_ratio=ratio,
            reserved_percentage=reserved,
            stamp=stamp)

    @staticmethod
    def _volume(info, type_ids, stamp):
        """A Volume from a volume as Cinder's API shows it (a dict)."""
        type_name = info.get('volume_type')
        return storage_elements.Volume(
            uuid=info['id'], name=info.get('name') or '',
            size=info.get('size') or 0,
            status=info.get('status') or 'available',
            attachments=tuple(sorted(
                (a.get('server_id'), a.get('attachment_id'))
                for a in info.get('attachments') or ())),
            project_id=info.get('os-vol-tenant-attr:tenant_id'),
            bootable=str(info.get('bootable')).lower() == 'true',
            multiattach=bool(info.get('multiattach')),
            volume_type=type_name,
            volume_type_id=(info.get('volume_type_id')
                            or type_ids.get(type_name)),
            pool=info.get('os-vol-host-attr:host'),
            availability_zone=info.get('availability_zone'),
            snapshot_id=info.get('snapshot_id'),
            metadata=cinder_events.metadata(info.get('metadata')),
            created_at=info.get('created_at'),
            migration_status=info.get('migration_status'),
            stamp=stamp)

    # What a notification named and the model lacks.

    def fetch_node(self, missing, stamp):
        """``missing``: (cinder_events.POOL, name) or
        (cinder_events.VOLUME_TYPE, id), as cinder_events.apply names
        them; returns what Cinder has (see merge_fetched), or None."""
        kind, key = missing
        if kind == cinder_events.VOLUME_TYPE:
            try:
                return _volume_type(self._get('/types/%s' % key)[
                    'volume_type'])
            except ks_exc.NotFound:
                return None
        if kind == cinder_events.POOL:
            return self._read_pool(key, stamp)
        raise ValueError('the storage model cannot fetch %r' % (missing,))

    def _read_pool(self, name, stamp):
        snapshot = self.model.snapshot()
        known = snapshot.pool(name)
        if (known is not None and known.volume_backend_name is not None
                and (known.allocated_capacity_gb is None
                     or snapshot.allocated(name)
                     == known.allocated_capacity_gb)):
            # The events after the one that named it accounted for it.
            return None
        found = self._pools(name=name)
        pool = next((self._pool(info, stamp) for info in found
                     if info['name'] == name), None)
        host = storage_elements.backend_of(name)
        node = None
        if snapshot.node(host) is None:
            types = dict(snapshot.volume_types)
            node = next((self._node(service, types, stamp)
                         for service in self._services(host=host)
                         if service['host'] == host), None)
        type_ids = _ids_by_name(snapshot.volume_types)
        volumes = tuple(
            self._volume(info, type_ids, stamp)
            for page in self._volume_pages(host=name) for info in page
            if info.get('os-vol-host-attr:host') == name)
        listed = {volume.uuid for volume in volumes}
        moved, deleted = [], []
        for volume in snapshot.volumes_in(name):
            if volume.uuid in listed:
                continue
            try:
                info = self._get('/volumes/%s' % volume.uuid)['volume']
            except ks_exc.NotFound:
                deleted.append(volume.uuid)
                continue
            moved.append(self._volume(info, type_ids, stamp))
        return PoolRead(name, pool, node, volumes, tuple(moved),
                        tuple(deleted), stamp)

    @staticmethod
    def merge_fetched(changes, found):
        """Put what fetch_node read into ``changes``; what an event told
        since the read began stays."""
        if isinstance(found, storage_elements.VolumeType):
            _put_volume_type(changes, found)
        elif isinstance(found, PoolRead):
            _put_pool_read(changes, found)

    # Notifications.

    def handlers(self):
        return [dispatch.Handler('storage', cinder_events.PUBLISHER,
                                 cinder_events.EVENT_TYPES,
                                 self.model.apply,
                                 handle_many=self.model.apply_many)]


def _volume_type(info):
    specs = info.get('extra_specs') or {}
    return storage_elements.VolumeType(
        id=info['id'], name=info['name'],
        volume_backend_name=specs.get('volume_backend_name'),
        extra_specs=tuple(sorted(specs.items())))


def _ids_by_name(volume_types):
    return {t.name: t.id for t in volume_types.values()}


def _virtual_free(total, free, provisioned, thin, ratio, reserved):
    """What the scheduler counts as free for a new volume: thin, the
    over-subscribed total less what is provisioned; thick, the free
    space; both less the reserved share of the total."""
    if total is None or free is None:
        return None
    held = total * (reserved or 0) / 100
    if thin and ratio is not None and provisioned is not None:
        return total * ratio - provisioned - held
    return free - held


def _newer(element, stamp):
    return element is None or element.stamp <= stamp


def _put_volume_type(changes, volume_type):
    changes.put_volume_type(volume_type)
    for volume in changes.all_volumes().values():
        if (volume.volume_type_id == volume_type.id
                and volume.volume_type is None):
            changes.put_volume(dataclasses.replace(
                volume, volume_type=volume_type.name))
    backend = volume_type.volume_backend_name
    for node in changes.all_nodes().values():
        if (node.backend == backend
                and volume_type.name not in node.volume_types):
            changes.put_node(dataclasses.replace(
                node, volume_types=tuple(sorted(
                    node.volume_types + (volume_type.name,)))))


def _put_pool_read(changes, read):
    current = changes.pool(read.name)
    if read.pool is not None:
        if current is not None and current.stamp > read.stamp:
            # Capacities a later capacity.pool told stay; the rest of
            # what a read shows (backend name, protocol...) is new.
            changes.put_pool(dataclasses.replace(
                read.pool, stamp=current.stamp,
                **{field: getattr(current, field) for field in (
                    'total_capacity_gb', 'free_capacity_gb',
                    'allocated_capacity_gb', 'provisioned_capacity_gb',
                    'virtual_free')}))
        else:
            changes.put_pool(read.pool)
    if read.node is not None and changes.node(read.node.host) is None:
        changes.put_node(read.node)
    for volume in read.volumes + read.moved:
        buried = changes.tombstone(volume.uuid)
        if buried is not None and (buried.final
                                   or buried.stamp >= read.stamp):
            continue
        if _newer(changes.volume(volume.uuid), read.stamp):
            changes.put_volume(volume)
    for uuid in read.deleted:
        if _newer(changes.volume(uuid), read.stamp):
            changes.remove_volume(uuid, read.stamp)
