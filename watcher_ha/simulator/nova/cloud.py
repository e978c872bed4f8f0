"""The simulated cloud: compute hosts and their services, flavors, servers
and migrations, with Nova's rules.

Every operation runs under one lock and either changes the cloud or
raises ``model.Refused`` with the HTTP status and message Nova would give.
Operations that take time in Nova (live migration, cold migration,
evacuation, a host's power actions and boot) finish later on a timer
(``_later``); each step emits the notifications Nova emits, through
``events`` (see the simulator's notifications.py). The records are
model.py; this module holds the cloud, its scheduler and the servers'
creation and deletion; the other operations are each a part of the
cloud of their own: migrations.py (live and cold migrations, resizes),
server_actions.py (power, pause, suspend, shelve, lock, reset),
services.py (the compute services) and volumes.py (volume
attachments). A host's failures and power are
hosts.py, evacuation is evacuation.py, Ironic's view of the hosts is
ironic/baremetal.py: each works on this cloud, under its lock.
"""

import collections
import itertools
import threading
import uuid as uuidlib

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator.nova import instance_actions
from watcher_ha.simulator.nova import migrations
from watcher_ha.simulator.nova import model
from watcher_ha.simulator.nova import networks
from watcher_ha.simulator.nova import server_actions
from watcher_ha.simulator.nova import server_groups
from watcher_ha.simulator.nova import services
from watcher_ha.simulator.nova import volumes

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


class NoEvents:
    """What the cloud tells when nobody listens."""

    def emit(self, event_type, publisher, **objects):
        pass


class Cloud(migrations.Migrations, server_actions.ServerActions,
            services.Services, volumes.ServerVolumes):

    def __init__(self, bandwidth_mb_per_s=1000.0, events=None,
                 evacuate_seconds=EVACUATE_SECONDS,
                 power_seconds=POWER_SECONDS, boot_seconds=BOOT_SECONDS,
                 service_down_time=0.0,
                 max_concurrent_live_migrations=MAX_CONCURRENT_LIVE_MIGRATIONS,
                 rpc_response_timeout=RPC_RESPONSE_TIMEOUT, clock=None):
        self.lock = threading.RLock()
        # What its timers run on and its records are stamped with.
        self.clock = clock or clock_mod.REAL
        self.hosts = {}
        # name -> aggregates.Aggregate; the members are the hosts naming it.
        self.aggregates = {}
        self.flavors = {}
        self.servers = {}
        self.by_host = model.ServersByHost()
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
        # Seconds a reboot takes (0: done at once).
        self.reboot_seconds = 0.0
        # Whether Nova sends Cinder a service token (volumes.py).
        self.nova_service_token = True
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
        # Neutron's networks and the servers' addresses on them.
        self.networks = networks.Networks()

    # Building the cloud (scenarios).

    def add_host(self, host):
        with self.lock:
            host.hypervisor_id = next(self._hypervisor_ids)
            host.service_down_time = self.service_down_time
            host.clock = self.clock
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
            raise model.Refused(404, 'Instance %s could not be found.' % uuid)
        return found

    def host(self, name):
        found = self.hosts.get(name)
        if found is None:
            raise model.Refused(404, 'Compute host %s could not be found.'
                                % name)
        return found

    def flavor(self, ident):
        found = self.flavors.get(str(ident))
        if found is None:
            for flavor in self.flavors.values():
                if flavor.name == ident:
                    return flavor
            raise model.Refused(404, 'Flavor %s could not be found.' % ident)
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
        totals = dict.fromkeys(model.RESOURCES, 0)
        for server in self._near(host):
            for needs in self.allocations_on(server, host):
                for resource, amount in needs.items():
                    totals[resource] = totals.get(resource, 0) + amount
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
        return all(used.get(r, 0) + amount <= host.capacity(r)
                   for r, amount in needs.items())

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
        raise model.Refused(400, 'No valid host was found. There are not '
                                 'enough hosts available.')

    def _check_destination(self, name, needs, source, zone=None):
        """The host ``name``, if the scheduler lets a server needing
        ``needs`` (and asking for the availability zone ``zone``) move
        there from ``source``."""
        host = self.hosts.get(name)
        if host is None:
            raise model.Refused(400, 'Compute host %s could not be found.'
                                % name)
        if name == source:
            raise model.Refused(400, 'The target host %s is the host the '
                                     'instance is on.' % name)
        if host.status != 'enabled' or host.state != 'up':
            raise model.Refused(400, 'Compute service of %s is unavailable at '
                                     'this time.' % name)
        if zone and host.availability_zone != zone:
            raise model.Refused(400, 'No valid host was found. %s is not in '
                                     'the availability zone %s.'
                                % (name, zone))
        if not self.fits(host, needs):
            raise model.Refused(400, 'No valid host was found. Unable to '
                                     'migrate instance to %s: not enough '
                                     'resources.' % name)
        return host

    # Changing.

    def _touch(self, server):
        server.updated_at = self.clock.now()

    def _require(self, server, action, states=('active',), task=None):
        if server.locked:
            raise model.Refused(409, 'Instance %s is locked' % server.uuid)
        if server.vm_state not in states or server.task_state != task:
            raise model.Refused(409, "Cannot '%s' instance %s while it is in "
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
        self.timers.add(self.clock.later(seconds, self._run_later, func,
                                         args))

    def _run_later(self, func, args):
        with self.lock:
            func(*args)

    def create_server(self, name, flavor_ref, zone=None, metadata=None,
                      tenant_id='admin', user_id='admin', key_name=None,
                      host=None, root_volume=None, group=None,
                      networks=None, image=None):
        """``group``: the server group (its id) the server joins (the
        scheduler hint); a forced ``host`` bypasses its policy, as it
        bypasses Nova's filters. ``networks``: Nova's (networks.py);
        ``image``: the image's id (any: there is no Glance)."""
        with self.lock:
            flavor = self.flavor(flavor_ref)
            group = server_groups.get(self, group) if group else None
            needs = flavor.needs(volume_backed=root_volume is not None)
            target = (self._check_destination(host, needs, None) if host
                      else self._schedule(needs, zone=zone, group=group))
            ports = self.networks.ports_for(networks)
            now = self.clock.now()
            server = model.Server(
                uuid=str(uuidlib.uuid4()), name=name, flavor=flavor,
                host=None, tenant_id=tenant_id, user_id=user_id,
                vm_state='building', power_state=0,
                task_state='scheduling', metadata=dict(metadata or {}),
                key_name=key_name,
                availability_zone=target.availability_zone,
                pinned_availability_zone=zone, created_at=now,
                root_volume=root_volume, ports=ports,
                **({'image_uuid': image} if image else {}))
            self.add_server(server)
            instance_actions.record(server, 'create', now)
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
                raise model.Refused(409, 'Instance %s is locked' % uuid)
            host = self.hosts.get(server.host) if server.host else None
            if host is not None and host.state == 'up' \
                    and not host.reporting:
                # Nova casts the delete to a compute it counts up, which
                # hears nothing: the server stays, being deleted.
                server.task_state = 'deleting'
                self._touch(server)
                return
            server.task_state = 'deleting'
            self._emit('instance.delete.start', server)
            self._release_volumes(server)
            server.vm_state, server.task_state = 'deleted', None
            server.power_state = 0
            self._emit('instance.delete.end', server)
            del self.servers[uuid]
            self.by_host.remove(server)
            server_groups.forget(self, uuid)
