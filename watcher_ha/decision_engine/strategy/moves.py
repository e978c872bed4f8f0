"""The server moves one plan makes, as the strategy decides them.

Every strategy that moves servers plans through a ``Moves``: it knows
where each server is once the moves so far are made, what room each
destination has left (Placement's view: totals less reserved, times the
allocation ratios, less what is placed there and what Placement holds
beyond it), which hosts may receive servers at all, and the audit's
disruption budget. So no strategy over-packs a host, sends a server to a
host kept for failover, or moves more than the operator allowed, and
none has to re-implement the bookkeeping.

The audit parameters below are watcher_ha's, beyond Watcher: each
strategy that moves servers declares them with ``parameters_spec()``,
and their defaults change nothing.
"""

import collections
import operator

RESOURCES = ('vcpus', 'memory_mb', 'disk_gb')
# The vm_states in which Nova accepts each kind of migration.
MIGRATABLE = {'live': frozenset(('active', 'paused')),
              'cold': frozenset(('active', 'stopped'))}

BUDGET_PARAMETERS = {
    'max_migrations': {
        'description': 'The most servers one plan (one round of a '
                       'continuous audit) may move; 0: no limit.',
        'type': 'integer', 'minimum': 0, 'default': 0},
    'max_migrations_per_host': {
        'description': 'The most servers one plan may move off any one '
                       'host; 0: no limit.',
        'type': 'integer', 'minimum': 0, 'default': 0},
    'max_migrations_per_project': {
        'description': 'The most servers of any one project one plan may '
                       'move; 0: no limit.',
        'type': 'integer', 'minimum': 0, 'default': 0},
    'min_improvement': {
        'description': 'The least improvement, in percent of its value '
                       'before the plan, of the goal\'s objective for a '
                       'plan to be proposed at all; below it the audit '
                       'proposes an empty plan. 0: any plan is proposed.',
        'type': 'number', 'minimum': 0, 'maximum': 100, 'default': 0},
}


# The budget's limits (BUDGET_PARAMETERS but min_improvement).
LIMITS = ('max_migrations', 'max_migrations_per_host',
          'max_migrations_per_project')


def parameters_spec(properties, required=()):
    """A strategy's parameters_spec: its own ``properties`` and the
    budget and hysteresis parameters of every strategy that moves
    servers."""
    spec = {'properties': {**properties, **BUDGET_PARAMETERS}}
    if required:
        spec['required'] = list(required)
    return spec


def is_destination(node, protected=frozenset()):
    """Whether a node may receive servers: enabled, up, and not kept for
    failover or maintenance (``protected``: the reserved hosts of the
    failover segments and the hosts on maintenance)."""
    return (node.status == 'enabled' and node.state == 'up'
            and node.hostname not in protected)


class Budget:
    """The audit's disruption budget (LIMITS, 0: no limit): how many
    servers one plan may take off their hosts, in all, off any one host,
    of any one project; and what the plan has spent of it."""

    def __init__(self, parameters):
        self.limits = {key: parameters.get(key, 0) for key in LIMITS}
        self.spent = 0
        self._per_host = collections.Counter()
        self._per_project = collections.Counter()

    def allows(self, servers):
        """Whether the budget lets every one of ``servers`` ((host,
        project) pairs) leave its host in this plan, besides what it
        spent so far."""
        servers = list(servers)
        limit = self.limits
        left = self.left()
        if left is not None and len(servers) > left:
            return False
        asked_hosts = collections.Counter(host for host, _ in servers)
        asked_projects = collections.Counter(project
                                             for _, project in servers)
        return not (
            _over(limit['max_migrations_per_host'], self._per_host,
                  asked_hosts)
            or _over(limit['max_migrations_per_project'],
                     self._per_project, asked_projects))

    def spend(self, host, project):
        """Count one server leaving ``host``, of ``project``."""
        self.spent += 1
        self._per_host[host] += 1
        self._per_project[project] += 1

    def left(self):
        """Servers the overall budget still allows (None: no limit)."""
        if not self.limits['max_migrations']:
            return None
        return self.limits['max_migrations'] - self.spent


def _over(most, spent, asked):
    """Whether ``asked`` ({name: count}) on top of ``spent`` passes
    ``most`` (0: no limit) for any name."""
    return bool(most) and any(spent[name] + count > most
                              for name, count in asked.items())


class Moves:
    """The moves of one plan over a cluster snapshot (a ClusterState,
    never changed: the moves are kept beside it)."""

    def __init__(self, cluster, parameters, protected=frozenset()):
        self.cluster = cluster
        self.protected = frozenset(protected)
        self.budget = Budget(parameters)
        self.used = {hostname: used_on(cluster, node)
                     for hostname, node in cluster.nodes.items()}
        self.capacity = {hostname: {r: node.capacity(r) for r in RESOURCES}
                         for hostname, node in cluster.nodes.items()}
        # uuid -> its host once the moves so far are made, for the moved.
        self.moved = {}
        self._arrived = collections.defaultdict(set)
        self._left = collections.defaultdict(set)
        # (instance, source, destination, migration type), in order.
        self.made = []

    # Where things are.

    def host_of(self, instance):
        return self.moved.get(instance.uuid, instance.host)

    def instances_on(self, hostname):
        """The servers on ``hostname`` once the moves so far are made, in
        uuid order."""
        here = [i for i in self.cluster.instances_on(hostname)
                if i.uuid not in self._left[hostname]]
        here += [self.cluster.instance(uuid)
                 for uuid in self._arrived[hostname]]
        return sorted(here, key=lambda i: i.uuid)

    def free(self, hostname, resource):
        return self.capacity[hostname][resource] - self.used[hostname][
            resource]

    def destinations(self):
        """Hostnames that may receive servers."""
        return [hostname for hostname, node in self.cluster.nodes.items()
                if is_destination(node, self.protected)]

    # What may move, and where.

    def fits(self, instance, hostname):
        """Whether ``instance`` may go to ``hostname``: a destination
        other than where it is, in its pinned zone if it has one, with
        room for all it takes."""
        node = self.cluster.node(hostname)
        if (node is None or not is_destination(node, self.protected)
                or hostname == self.host_of(instance)):
            return False
        pinned = instance.pinned_availability_zone
        if pinned and node.availability_zone != pinned:
            return False
        return all(self.free(hostname, r) >= getattr(instance, r)
                   for r in RESOURCES)

    def within_budget(self, instance):
        """Whether the audit's budget lets one more move take
        ``instance`` off its current host."""
        return self.within_budget_all([instance])

    def within_budget_all(self, instances):
        """Whether the audit's budget lets every one of ``instances``
        move off its current host in this plan: for strategies that move
        a group or nothing (emptying a host whole)."""
        return self.budget.allows((self.host_of(i), i.project_id)
                                  for i in instances)

    def budget_left(self):
        """Moves the overall budget still allows (None: no limit)."""
        return self.budget.left()

    def can_move(self, instance, hostname):
        return self.within_budget(instance) and self.fits(instance,
                                                          hostname)

    # Making them.

    def move(self, instance, destination, migration_type='live'):
        """Record the move of ``instance`` to ``destination``; the caller
        checked can_move()."""
        source = self.host_of(instance)
        if destination == instance.host:
            self.moved.pop(instance.uuid, None)
        else:
            self.moved[instance.uuid] = destination
        self._left[source].add(instance.uuid)
        self._arrived[source].discard(instance.uuid)
        if destination != instance.host:
            self._arrived[destination].add(instance.uuid)
        self._left[destination].discard(instance.uuid)
        for resource in RESOURCES:
            amount = getattr(instance, resource)
            self.used[source][resource] -= amount
            self.used[destination][resource] += amount
        self.budget.spend(source, instance.project_id)
        self.made.append((instance, source, destination, migration_type))

    def add_to(self, solution):
        """One migrate action per move, in the order they were made."""
        for instance, source, destination, migration_type in self.made:
            solution.add_action('migrate', {
                'resource_id': instance.uuid,
                'resource_name': instance.name,
                'migration_type': migration_type,
                'source_node': source,
                'destination_node': destination}, resource_id=instance.uuid)


def used_on(cluster, node):
    """{resource: what ClusterState.used() gives} for ``node``, from
    one read of its servers (unsorted) rather than one per resource: what
    a plan starts from (here, and in a what-if's projection)."""
    instances = cluster.instances
    vcpus = memory_mb = disk_gb = 0
    # One pass with plain attributes: this runs for every server of the
    # cluster at the start of every plan.
    for uuid in cluster.placement.get(node.hostname, ()):
        server = instances[uuid]
        vcpus += server.vcpus
        memory_mb += server.memory_mb
        disk_gb += server.disk_gb
    return {'vcpus': vcpus + node.held('vcpus'),
            'memory_mb': memory_mb + node.held('memory_mb'),
            'disk_gb': disk_gb + node.held('disk_gb')}


# What an instance takes of RESOURCES, in their order (a tuple): asked
# for every server a strategy tries to place.
need_of = operator.attrgetter(*RESOURCES)


def migration_type(instance):
    """'live' for a server Nova live-migrates, 'cold' for one it can
    only cold-migrate, None for one it moves in neither way."""
    for kind in ('live', 'cold'):
        if instance.state in MIGRATABLE[kind]:
            return kind
    return None


def improved_enough(before, after, parameters, lower_is_better=True):
    """Whether a plan that takes the goal's objective from ``before`` to
    ``after`` improves it by the audit's ``min_improvement`` percent."""
    margin = parameters.get('min_improvement', 0)
    if not margin:
        return True
    gain = (before - after) if lower_is_better else (after - before)
    if before == 0:
        return gain > 0
    return 100.0 * gain / abs(before) >= margin
