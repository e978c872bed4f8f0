"""The compute collector: compute nodes and servers, read from Nova and
Placement, kept fresh by Nova's notifications.

Nova (through python-novaclient) gives the compute services (status,
state, disabled reason), the hypervisors (their uuid), the aggregates and
availability zones and every server with its flavor; Placement (through a
keystoneauth adapter) gives each node's inventory: totals, reserved
amounts and allocation ratios, which Nova's API no longer shows since
microversion 2.88; and, at a full read and when a host's servers are
read, what each server is allocated of every resource class (custom ones
too), one request per resource provider.

Credentials and endpoints: ``[nova]`` and ``[placement]`` (see
watcher_ha.cloud.clients).
"""

import collections
import dataclasses
import typing
from concurrent import futures
from urllib import parse

from novaclient import exceptions as nova_exc
from novaclient.v2 import hypervisors as hypervisors_mod
from oslo_config import cfg
from oslo_log import log

from watcher_ha.common import resources
from watcher_ha.cloud import clients
from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import nova_events
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state as model_state
from watcher_ha.decision_engine.model.collector import base

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# Requests a full sync has in flight beside the server list: the other
# reads, one per resource provider for Placement. One of these threads
# waits for the per-provider reads it hands to the others, so there must
# be more than one.
READERS = 8


class Provider(typing.NamedTuple):
    """A resource provider as Placement showed it: its uuid, {class:
    inventory}, {class: amount used} (when read) and its allocations
    ({consumer uuid: {class: amount}}, when read)."""
    uuid: str
    inventory: dict
    usages: dict
    allocations: dict


class ComputeCollector(base.Collector):
    name = 'compute'
    apply_event = staticmethod(nova_events.apply)

    def __init__(self, conf, model):
        super().__init__(conf, model)
        self._nova = None
        self._placement = None

    def disabled_because(self):
        return clients.configured(self.conf)

    # Clients, made on first use (the engine starts without Nova).

    def nova(self):
        if self._nova is None:
            self._nova = clients.nova(self.conf)
        return self._nova

    def placement(self):
        if self._placement is None:
            self._placement = clients.placement(self.conf)
        return self._placement

    # Full read.

    def build(self, stamp):
        nova = self.nova()
        pool = futures.ThreadPoolExecutor(READERS,
                                          thread_name_prefix='full-sync')
        # The server list is the longest read: page after page, each
        # asked for once the one before names its last server. One thread
        # of its own reads them, so the next page is on its way while
        # this thread converts the last; the other reads (a request per
        # resource provider among them) go on beside it in the pool.
        pager = futures.ThreadPoolExecutor(1, thread_name_prefix='full-sync')
        try:
            hypervisors = pool.submit(_hypervisors, nova)
            services = pool.submit(nova.services.list,
                                   binary='nova-compute')
            aggregates = pool.submit(nova.aggregates.list)
            providers = pool.submit(self._providers, pool=pool,
                                    usages=True)
            changes = model_state.ClusterState().changes()
            # Placement's allocations go with each server as it is
            # converted once they are read (mostly before the servers'
            # pages end); those converted before are given theirs after.
            allocated, early = None, []
            for page in _pages(nova, '/servers/detail?all_tenants=1',
                               'servers', reader=pager):
                if allocated is None and providers.done():
                    allocated = _consumers(providers.result().values())
                for server in page:
                    instance = self._instance(
                        server, stamp,
                        None if allocated is None
                        else allocated.get(server['id']))
                    if instance.state not in elements.GONE_STATES:
                        changes.put_instance(instance)
                        if allocated is None:
                            early.append(instance.uuid)
            servers = changes.state()
            changes = servers.changes()
            providers = providers.result()
            if allocated is None:
                allocated = _consumers(providers.values())
            for uuid in early:
                if uuid in allocated:
                    changes.put_instance(dataclasses.replace(
                        servers.instance(uuid), allocations=(
                            elements.frozen_mapping(allocated[uuid]))))
            self._put_nodes(changes, stamp, aggregates.result(),
                            services.result(), providers,
                            hypervisors.result(), counted=servers.used)
            return changes.state()
        finally:
            # On a failed read, the reads not yet begun are dropped.
            pager.shutdown(wait=True, cancel_futures=True)
            pool.shutdown(wait=True, cancel_futures=True)

    def _put_nodes(self, changes, stamp, aggregates, services, providers,
                   hypervisors, counted):
        zones = self._zones(aggregates)
        services = {s.host: s for s in services}
        for aggregate in aggregates:
            changes.put_aggregate(elements.Aggregate(
                name=aggregate.name, uuid=getattr(aggregate, 'uuid', None),
                id=getattr(aggregate, 'id', None),
                availability_zone=aggregate.availability_zone,
                stamp=stamp))
        for hypervisor in hypervisors:
            node = self._node(hypervisor, services, providers, zones,
                              stamp, counted=counted)
            if node is not None:
                changes.put_node(node)

    def fetch_node(self, hostname, stamp):
        nova = self.nova()
        try:
            matching = nova.hypervisors.search(hostname, detailed=True)
        except nova_exc.NotFound:
            # Nova's answer when no hypervisor matches.
            return None
        found = [h for h in matching if _hypervisor_host(h) == hostname]
        if not found:
            return None
        services = {s.host: s for s in nova.services.list(
            host=hostname, binary='nova-compute')}
        # Placement's usages are not read here: the node's servers may not
        # be in the model yet, so what they do not account for is unknown
        # until the next full read.
        providers = self._providers(names={found[0].hypervisor_hostname})
        return self._node(found[0], services, providers,
                          self._zones(nova.aggregates.list()), stamp)

    def fetch_servers(self, hostname, stamp):
        """The servers Nova has on ``hostname`` now, with what Placement
        allocates to them on the providers of their hypervisors."""
        path = '/servers/detail?all_tenants=1&host=%s' % parse.quote(
            hostname)
        found = [server for page in _pages(self.nova(), path, 'servers')
                 for server in page]
        names = {server.get('OS-EXT-SRV-ATTR:hypervisor_hostname')
                 for server in found} - {None}
        allocated = _consumers(self._providers(
            names=names, allocations=True).values()) if names else {}
        return [instance for instance in (
            self._instance(s, stamp, allocated.get(s['id'])) for s in found)
            if instance.state not in elements.GONE_STATES]

    @staticmethod
    def _zones(aggregates):
        """{host: (availability zone, aggregate names)}."""
        found = {}
        for aggregate in aggregates:
            zone = aggregate.availability_zone
            for host in aggregate.hosts:
                known_zone, names = found.get(host, (None, frozenset()))
                found[host] = (zone or known_zone, names | {aggregate.name})
        return found

    def _providers(self, names=None, pool=None, usages=False,
                   allocations=False):
        """{provider name: Provider}, the usages only when asked for, the
        allocations with the usages or when asked for; with ``pool``,
        each provider is read in its threads."""
        placement = self.placement()
        if names is None:
            providers = placement.get('/resource_providers').json()[
                'resource_providers']
        else:
            providers = [p for name in sorted(names)
                         for p in placement.get(
                             '/resource_providers', params={'name': name}
                         ).json()['resource_providers']]

        def read(provider):
            path = '/resource_providers/%s/' % provider['uuid']
            inventory = placement.get(path + 'inventories').json()[
                'inventories']
            used = (placement.get(path + 'usages').json()['usages']
                    if usages else {})
            held = (placement.get(path + 'allocations').json()[
                'allocations'] if usages or allocations else {})
            return Provider(provider['uuid'], inventory, used, held)
        each = map if pool is None else pool.map
        return {provider['name']: found for provider, found in zip(
            providers, each(read, providers), strict=True)}

    def _node(self, hypervisor, services, providers, zones, stamp,
              counted=None):
        """The node of ``hypervisor``; with ``counted(hostname,
        resource)``, what its servers in the model take, the node holds
        what else Placement counts as used there."""
        host = _hypervisor_host(hypervisor)
        service = services.get(host)
        if service is None:
            return None
        uuid, inventory, usages, _ = providers.get(
            hypervisor.hypervisor_hostname,
            Provider(str(hypervisor.id), {}, {}, {}))
        zone, aggregates = zones.get(host, (None, frozenset()))
        held = {}
        if counted is not None:
            for resource_class, resource in resources.RESOURCE_CLASSES.items():
                held[resource + '_held'] = max(
                    0, usages.get(resource_class, 0)
                    - counted(host, resource))

        def amount(resource_class, key, default=0):
            return inventory.get(resource_class, {}).get(key, default)
        return elements.ComputeNode(
            hostname=host, uuid=uuid,
            state='down' if (service.state == 'down'
                             or getattr(service, 'forced_down', False))
            else 'up',
            status=service.status, disabled_reason=service.disabled_reason,
            vcpus=amount('VCPU', 'total'),
            memory_mb=amount('MEMORY_MB', 'total'),
            disk_gb=amount('DISK_GB', 'total'),
            vcpu_reserved=amount('VCPU', 'reserved'),
            memory_mb_reserved=amount('MEMORY_MB', 'reserved'),
            disk_gb_reserved=amount('DISK_GB', 'reserved'),
            vcpu_ratio=amount('VCPU', 'allocation_ratio', 1.0),
            memory_ratio=amount('MEMORY_MB', 'allocation_ratio', 1.0),
            disk_ratio=amount('DISK_GB', 'allocation_ratio', 1.0),
            availability_zone=zone or getattr(service, 'zone', None),
            aggregates=frozenset(aggregates), stamp=stamp, **held)

    @staticmethod
    def _instance(info, stamp, allocations=None):
        """An Instance from a server as Nova's API shows it (a dict);
        ``allocations``: what Placement allocates to it ({class:
        amount}), None when not read."""
        flavor = info.get('flavor') or {}
        return elements.Instance(
            uuid=info['id'], name=info.get('name') or '',
            state=info.get('OS-EXT-STS:vm_state') or 'active',
            host=info.get('OS-EXT-SRV-ATTR:host'),
            vcpus=flavor.get('vcpus', 0), memory_mb=flavor.get('ram', 0),
            disk_gb=flavor.get('disk', 0) + flavor.get('ephemeral', 0),
            project_id=info.get('tenant_id'),
            metadata=elements.frozen_mapping(info.get('metadata')),
            locked=bool(info.get('locked')),
            pinned_availability_zone=info.get('pinned_availability_zone'),
            flavor_extra_specs=elements.frozen_mapping(
                flavor.get('extra_specs')),
            created_at=nova_events.parse_created(info.get('created')),
            allocations=(None if allocations is None
                         else elements.frozen_mapping(allocations)),
            stamp=stamp)

    # Notifications.

    def handlers(self):
        event_types = frozenset(
            list(nova_events.PLACEMENT) + list(nova_events.SERVICE_EVENTS)
            + list(nova_events.AGGREGATE_EVENTS))
        return [dispatch.Handler('compute', r'^nova-', event_types,
                                 self.model.apply,
                                 handle_many=self.model.apply_many)]


def _consumers(providers):
    """{consumer uuid: {class: amount}} over ``providers`` (Provider),
    each consumer's allocations summed over the providers that hold
    them."""
    found = collections.defaultdict(collections.Counter)
    for provider in providers:
        for consumer, held in provider.allocations.items():
            found[consumer].update(held.get('resources') or {})
    return {consumer: dict(amounts) for consumer, amounts in found.items()}


def _pages(nova, path, collection, reader=None):
    """Every item of one of Nova's paged collections, page after page, as
    Nova's JSON: plain dicts, without novaclient's resource objects (it
    deep-copies each one that is read back). Nova cuts every list at its
    ``[api] max_limit`` (1,000 by default) and links the next page while
    a page is full, so a list is read to its end by following the links.
    With ``reader`` (an executor), the page after each is asked for in
    it before the page is handed over."""
    def page(marker):
        url = path
        if marker is not None:
            url += '%smarker=%s' % ('&' if '?' in path else '?',
                                    parse.quote(marker))
        _resp, body = nova.client.get(url)
        items = body[collection]
        more = bool(items) and any(
            link.get('rel') == 'next'
            for link in body.get(collection + '_links', ()))
        return items, more
    ask = _at_once if reader is None else reader.submit
    coming = ask(page, None)
    while coming is not None:
        items, more = coming.result()
        coming = ask(page, items[-1]['id']) if more else None
        yield items


def _at_once(function, *args):
    done = futures.Future()
    done.set_result(function(*args))
    return done


def _hypervisors(nova):
    """Every hypervisor, with details, all pages of them."""
    return [hypervisors_mod.Hypervisor(nova.hypervisors, info, loaded=True)
            for page in _pages(nova, '/os-hypervisors/detail', 'hypervisors')
            for info in page]


def _hypervisor_host(hypervisor):
    service = getattr(hypervisor, 'service', None) or {}
    return service.get('host') or hypervisor.hypervisor_hostname
