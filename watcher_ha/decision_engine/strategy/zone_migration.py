"""zone_migration: move the servers off some compute nodes and the volumes
off some Cinder pools, for hardware maintenance (Watcher 17's strategy
of that name, its goal ``hardware_maintenance``, its parameters).

What moves:

- the servers of each ``compute_nodes[].src_node``: live-migrated if
  active or paused, cold-migrated if stopped (as Watcher 17, any other
  server stays, though it counts against the node's limit: see below);
- the volumes of each ``storage_pools[].src_pool`` (of ``src_type`` only,
  when given): retyped to ``dst_type`` when the entry gives one the volume
  does not have already, else migrated to ``dst_pool`` (none given:
  left). An entry naming the volume's pool and type wins over one naming
  its pool alone. As in Watcher, the volumes are read from the storage
  data model, narrowed to the audit's storage scope.

With ``with_attached_volume``, each volume planned brings right after it
the migrations of the servers it is attached to, of those that are to
move anyway.

Order: Watcher's ``priority`` sorts the servers and the volumes, its keys
taken in the order given, the first the strongest: ``project`` (those of
the projects listed first, in the list's order), ``compute_node`` and
``storage_pool`` (likewise by their host or pool), ``compute``
(``vcpu_num``, ``mem_size``, ``disk_size``: the largest first) and
``storage`` (``size``: the largest first; ``created_at``: the oldest
first). Ties keep the order before: Cinder's (newest volume first) for
the volumes; for the servers, the order of ``compute_nodes``, each
node's in uuid order. Watcher sorts once per key and moves matching
items to the front of a list one by one (quadratic); here one sort on a
composite key gives the same order.

The limits, as Watcher applies them: the volumes are planned first, in
order, then the servers. A volume or server is skipped when its pool
(node) has ``parallel_per_pool`` (``parallel_per_node``) planned already,
and planning stops when ``parallel_total`` are. A pool's count grows when
one of its volumes is planned, after the servers it brings; a node's for
each of its servers looked at, moved or not. A count that would pass a
limit does not grow: a volume whose attached servers fill the total is
still planned, so a plan can hold one volume over ``parallel_total``.

Where each server goes: to ``dst_node`` when its entry names one, else
where Nova's scheduler could put it: the enabled, up node with the most
free memory (Placement's count) it fits on, in its pinned zone, other
than the nodes being emptied. No server goes to a host kept for
failover, claimed by a recovery or on maintenance, or beyond the room a
host has: a plan that cannot place a server it moves fails the audit,
naming it (Watcher leaves the choice to Nova, and the action fails).
"""

import datetime

from oslo_utils import timeutils

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import moves as moves_mod

INSTANCE, VOLUME = 'instance', 'volume'
# Nova's vm_states in which Watcher live- or cold-migrates a server.
LIVE_STATES = frozenset(('active', 'paused'))
COLD_STATES = frozenset(('stopped',))
OLDEST = datetime.datetime.min


def _text(description):
    return {'description': description, 'type': 'string'}


def _count(description, default):
    return {'description': description, 'type': 'integer', 'minimum': 0,
            'default': default}


_NAMES = {'type': 'array', 'items': {'type': 'string'}}

PARAMETERS_SPEC = {
    'properties': {
        'compute_nodes': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {
                    'src_node': _text('Compute node from which instances '
                                      'migrate'),
                    'dst_node': _text('Compute node to which instances '
                                      'migrate'),
                },
                'required': ['src_node'],
                'additionalProperties': False,
            },
        },
        'storage_pools': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {
                    'src_pool': _text('Storage pool from which volumes '
                                      'migrate'),
                    'dst_pool': _text('Storage pool to which volumes '
                                      'migrate'),
                    'src_type': _text('Volume type from which volumes '
                                      'migrate'),
                    'dst_type': _text('Volume type to which volumes '
                                      'migrate'),
                },
                'oneOf': [
                    {'required': ['src_pool', 'dst_pool'],
                     'not': {'required': ['dst_type']}},
                    {'required': ['src_pool', 'dst_type'],
                     'not': {'required': ['dst_pool']}},
                ],
                'additionalProperties': False,
            },
        },
        'parallel_total': _count('The number of actions to be run in '
                                 'parallel in total', 6),
        'parallel_per_node': _count('The number of actions to be run in '
                                    'parallel per compute node', 2),
        'parallel_per_pool': _count('The number of actions to be run in '
                                    'parallel per storage host', 2),
        'priority': {
            'description': 'List prioritizes instances and volumes',
            'type': 'object',
            'properties': {
                'project': _NAMES,
                'compute_node': _NAMES,
                'storage_pool': _NAMES,
                'compute': {'enum': ['vcpu_num', 'mem_size', 'disk_size',
                                     'created_at']},
                'storage': {'enum': ['size', 'created_at']},
            },
            'additionalProperties': False,
        },
        'with_attached_volume': {
            'description': 'instance migrates just after attached volumes '
                           'or not',
            'type': 'boolean', 'default': False},
    },
    'additionalProperties': False,
}


class ZoneMigration(base.Strategy):
    name = 'zone_migration'
    display_name = 'Zone migration'
    goal = 'hardware_maintenance'
    data_models = ('compute', 'storage')
    parameters_spec = PARAMETERS_SPEC

    def fresh_hosts(self, parameters):
        # Watcher 17 lists the servers from Nova at the audit: one the
        # model missed (a notification lost or late) would stay behind
        # on a node being emptied.
        sources = sorted({entry['src_node'] for entry in
                          parameters.get('compute_nodes') or []})
        return {'compute': sources} if sources else {}

    def execute(self, audit, parameters, models=None, metrics=None):
        models = models or {}
        cluster = models.get('compute')
        if cluster is None:
            raise base.StrategyError('zone_migration needs the compute data '
                                     'model')
        compute_nodes = parameters.get('compute_nodes') or []
        storage_pools = parameters.get('storage_pools') or []
        storage = models.get('storage')
        if storage_pools and storage is None:
            raise base.StrategyError(
                'zone_migration needs the storage data model to move '
                'volumes: add storage to [watcher_decision_engine] '
                'collectors and configure [cinder]')
        priority = parameters.get('priority') or {}
        servers = _ordered(_servers(cluster, compute_nodes), priority,
                           INSTANCE)
        volumes = _ordered(_volumes(storage, storage_pools), priority,
                           VOLUME)
        planner = _Planner(self.new_solution(), cluster, compute_nodes,
                           storage_pools, parameters, self.protected_hosts)
        planner.plan(volumes, servers)
        solution = planner.solution
        live = sum(1 for s in servers if s.state in LIVE_STATES)
        cold = sum(1 for s in servers if s.state in COLD_STATES)
        # As Watcher: the volume counts stand for both the detached
        # (migrate) and the attached (update) indicators.
        for name, value in (
                ('live_migrate_instance_count', live),
                ('planned_live_migrate_instance_count', planner.planned_live),
                ('cold_migrate_instance_count', cold),
                ('planned_cold_migrate_instance_count', planner.planned_cold),
                ('volume_migrate_count', len(volumes)),
                ('planned_volume_migrate_count', planner.planned_volumes),
                ('volume_update_count', len(volumes)),
                ('planned_volume_update_count', planner.planned_volumes)):
            solution.set_indicator(name, value)
        return solution


def _servers(cluster, compute_nodes):
    """The servers of the source nodes, node by node in the order given,
    each node's in uuid order; a source not in the model is refused."""
    found, seen = [], set()
    for index, entry in enumerate(compute_nodes):
        source = entry['src_node']
        if cluster.node(source) is None:
            raise base.StrategyError(
                'compute node %s (compute_nodes[%d].src_node) is not in '
                'the compute data model, or the audit\'s scope leaves it '
                'out: give the name "openstack compute service list" '
                'shows' % (source, index))
        if source not in seen:
            seen.add(source)
            found += cluster.instances_on(source)
    return found


def _volumes(storage, storage_pools):
    """The volumes of the source pools (of the source type, where an
    entry gives one), newest first as Cinder lists them; a source pool
    not in the model is refused."""
    if not storage_pools:
        return []
    wanted = set()
    for index, entry in enumerate(storage_pools):
        if storage.pool(entry['src_pool']) is None:
            raise base.StrategyError(
                'storage pool %s (storage_pools[%d].src_pool) is not in the '
                'storage data model, or the audit\'s scope leaves it out: '
                'give its host@backend#pool name as "cinder get-pools" '
                'shows it' % (entry['src_pool'], index))
        wanted.add((entry['src_pool'], entry.get('src_type')))
    found = [volume for pool in {pool for pool, _ in wanted}
             for volume in storage.volumes_in(pool)
             if (pool, None) in wanted or (pool, volume.volume_type) in wanted]
    return sorted(found, reverse=True,
                  key=lambda v: (_created(v.created_at), v.uuid))


def _created(text):
    """A created_at as a naive UTC time (the oldest possible if unset),
    so that times with and without a zone compare."""
    if not text:
        return OLDEST
    return timeutils.normalize_time(timeutils.parse_isotime(text))


def _rank(names, value):
    """Where ``value`` is in ``names`` (after all of them if not in)."""
    try:
        return names.index(value)
    except ValueError:
        return len(names)


# priority key -> {target kind: the sort key it gives an item}. A list
# priority (project, compute_node, storage_pool) ranks by position in the
# list; ``compute`` and ``storage`` name one attribute (``created_at``:
# the oldest first, one not known first of all).
_PRIORITY_KEYS = {
    'project': {
        INSTANCE: lambda names: lambda s: _rank(names, s.project_id),
        VOLUME: lambda names: lambda v: _rank(names, v.project_id)},
    'compute_node': {
        INSTANCE: lambda names: lambda s: _rank(names, s.host)},
    'storage_pool': {
        VOLUME: lambda names: lambda v: _rank(names, v.pool)},
    'compute': {
        INSTANCE: lambda key: {
            'vcpu_num': lambda s: -s.vcpus,
            'mem_size': lambda s: -s.memory_mb,
            'disk_size': lambda s: -s.disk_gb,
            'created_at': lambda s: s.created_at or OLDEST}[key]},
    'storage': {
        VOLUME: lambda key: {
            'size': lambda v: -v.size,
            'created_at': lambda v: _created(v.created_at)}[key]},
}


def _ordered(items, priority, kind):
    """``items`` sorted by the ``priority`` keys that apply to ``kind``,
    the first given the strongest; stable, as Watcher's sorts are."""
    keys = [_PRIORITY_KEYS[name][kind](value)
            for name, value in priority.items()
            if kind in _PRIORITY_KEYS.get(name, {})]
    if not keys:
        return list(items)
    return sorted(items, key=lambda item: tuple(key(item) for key in keys))


class _Limits:
    """Watcher's counts of planned actions, per pool, per node and in
    all; a count grows only while under its limits."""

    def __init__(self, parameters):
        self.total_limit = parameters.get('parallel_total', 6)
        self.per_node_limit = parameters.get('parallel_per_node', 2)
        self.per_pool_limit = parameters.get('parallel_per_pool', 2)
        self.total = 0
        self.per_node = {}
        self.per_pool = {}

    def total_reached(self):
        return self.total >= self.total_limit

    def node_reached(self, node):
        return self.per_node.get(node, 0) >= self.per_node_limit

    def pool_reached(self, pool):
        return self.per_pool.get(pool, 0) >= self.per_pool_limit

    def count_node(self, node):
        if not self.total_reached() and not self.node_reached(node):
            self.per_node[node] = self.per_node.get(node, 0) + 1
            self.total += 1

    def count_pool(self, pool):
        if not self.total_reached() and not self.pool_reached(pool):
            self.per_pool[pool] = self.per_pool.get(pool, 0) + 1
            self.total += 1


class _Planner:
    """The actions of one plan, in Watcher's order, with the room on
    the destinations kept by a moves.Moves."""

    def __init__(self, solution, cluster, compute_nodes, storage_pools,
                 parameters, protected):
        self.solution = solution
        self.limits = _Limits(parameters)
        self.with_attached = parameters.get('with_attached_volume', False)
        self.moves = moves_mod.Moves(cluster, {}, protected)
        self.protected = frozenset(protected)
        # The first entry for each source wins, as Watcher's lookups.
        self.dst_node = {}
        for entry in compute_nodes:
            self.dst_node.setdefault(entry['src_node'], entry.get('dst_node'))
        self.sources = frozenset(self.dst_node)
        self.by_pool_and_type, self.by_pool = {}, {}
        for entry in storage_pools:
            if entry.get('src_type') is None:
                self.by_pool.setdefault(entry['src_pool'], entry)
            else:
                self.by_pool_and_type.setdefault(
                    (entry['src_pool'], entry['src_type']), entry)
        self.planned_servers = set()
        self.planned_live = self.planned_cold = self.planned_volumes = 0
        self.unplaced = []

    def plan(self, volumes, servers):
        targets = {server.uuid: server for server in servers}
        self._volumes(volumes, targets)
        self._servers(servers)
        if self.unplaced:
            raise base.StrategyError(
                'no enabled, up compute node (in the server\'s pinned '
                'availability zone, if any, and not kept for failover or '
                'maintenance) has room for %s; free capacity or name a '
                'dst_node that can hold them' % ', '.join(self.unplaced))

    def _volumes(self, volumes, targets):
        limits = self.limits
        for volume in volumes:
            if limits.total_reached():
                break
            pool = volume.pool
            if limits.pool_reached(pool):
                continue
            entry = (self.by_pool_and_type.get((pool, volume.volume_type))
                     or self.by_pool.get(pool))
            dst_type = entry.get('dst_type')
            if dst_type is None or dst_type == volume.volume_type:
                if entry.get('dst_pool') is None:
                    continue
                self._add_volume(volume, 'migrate', 'destination_node',
                                 entry['dst_pool'])
            else:
                self._add_volume(volume, 'retype', 'destination_type',
                                 dst_type)
            if self.with_attached:
                self._servers([targets[uuid]
                               for uuid in volume.attached_servers
                               if uuid in targets])
            limits.count_pool(pool)

    def _add_volume(self, volume, migration_type, key, destination):
        self.solution.add_action('volume_migrate', {
            'migration_type': migration_type, key: destination,
            'resource_name': volume.name}, resource_id=volume.uuid)
        self.planned_volumes += 1

    def _servers(self, servers):
        limits = self.limits
        for server in servers:
            if server.uuid in self.planned_servers:
                continue
            if limits.total_reached():
                break
            source = server.host
            if limits.node_reached(source):
                continue
            if server.state in LIVE_STATES:
                self._move(server, 'live')
            elif server.state in COLD_STATES:
                self._move(server, 'cold')
            limits.count_node(source)

    def _move(self, server, migration_type):
        source = server.host
        destination = self._destination(server)
        self.planned_servers.add(server.uuid)
        if destination is None:
            self.unplaced.append('%s (from %s)' % (server.name or server.uuid,
                                                   source))
            return
        self.moves.move(server, destination, migration_type)
        self.solution.add_action('migrate', {
            'migration_type': migration_type, 'source_node': source,
            'destination_node': destination,
            'resource_name': server.name}, resource_id=server.uuid)
        if migration_type == 'live':
            self.planned_live += 1
        else:
            self.planned_cold += 1

    def _destination(self, server):
        """The entry's dst_node (refused, saying why, if it cannot take
        the server), or the node with the most free memory it fits on,
        not one being emptied; None if none."""
        moves = self.moves
        named = self.dst_node.get(server.host)
        if named is not None:
            if not moves.fits(server, named):
                raise base.StrategyError(self._refusal(server, named))
            return named
        best = None
        for hostname in moves.destinations():
            if hostname in self.sources or not moves.fits(server, hostname):
                continue
            if best is None or (-moves.free(hostname, 'memory_mb'),
                                hostname) < (-moves.free(best, 'memory_mb'),
                                             best):
                best = hostname
        return best

    def _refusal(self, server, named):
        node = self.moves.cluster.node(named)
        if node is None:
            why = ('is not in the compute data model, or the audit\'s '
                   'scope leaves it out')
        elif named in self.protected:
            why = 'is kept for failover or on maintenance'
        elif node.state != 'up':
            why = 'is down: its compute service does not report'
        elif node.status != 'enabled':
            why = 'is disabled in Nova'
        elif named == server.host:
            why = 'is the node it is on'
        elif (server.pinned_availability_zone and node.availability_zone
              != server.pinned_availability_zone):
            why = 'is outside its pinned availability zone %s' % (
                server.pinned_availability_zone)
        else:
            why = 'has no room left for it'
        return ('dst_node %s cannot take server %s from %s: it %s; name '
                'another dst_node, or none to let the strategy choose' % (
                    named, server.name or server.uuid, server.host, why))
