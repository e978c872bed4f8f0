"""noisy_neighbor: move a low-priority server that takes the last-level
(L3) cache of a high-priority one on the same node.

A server's priority is its metadata key ``watcher-priority`` (an integer;
1 comes before 8; 5 when unset), as Watcher reads it. Its cache use now
is the mean of ``instance_l3_cache_usage`` over the last ``period``
seconds; its use before is the mean over the period ahead of that (twice
the mean over ``2 * period`` less the mean over ``period``). On each node
with two servers or more:

- the hurt server is the most important one whose cache use fell by more
  than ``cache_threshold`` percent;
- its noisy neighbour is the least important one, no more important
  than it, whose cache use grew by more than ``cache_threshold`` percent.

The noisy neighbour is live-migrated to the enabled, up node with room
for it (Placement's view) that has no noisy neighbour of its own and the
least cache in use, counting what this plan already sent there.

Where this differs from Watcher, on purpose: Watcher moves one noisy
neighbour per audit (``max_migrations`` = 1 does the same here) and
compares priorities as text ("10" before "9"); it takes the first node
with room as destination.
"""

import bisect

from oslo_log import log

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import moves as moves_mod
from watcher_ha.decision_engine.strategy import parameter_specs

LOG = log.getLogger(__name__)

METRIC = 'instance_l3_cache_usage'
PRIORITY_KEY = 'watcher-priority'
DEFAULT_PRIORITY = 5
GRANULARITY = 300
CMT_HINT = '(Intel CMT and the libvirt collector are needed)'

PROPERTIES = {
    'cache_threshold': parameter_specs.number(
        'Performance drop in L3_cache threshold for migration', 35.0),
    'period': parameter_specs.period(
        100.0, 'Aggregate time period of ceilometer and gnocchi'),
}


class NoisyNeighbor(base.Strategy):
    name = 'noisy_neighbor'
    display_name = 'Noisy Neighbor'
    goal = 'noisy_neighbor'
    data_models = ('compute',)
    parameters_spec = moves_mod.parameters_spec(PROPERTIES)

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        inputs.require_metrics(metrics, self.name, METRIC)
        cache = _CacheUse(cluster, metrics, parameters['period'])
        threshold = parameters['cache_threshold'] / 100.0
        pairs = [pair for pair in (
            _noisy_pair(cluster.instances_on(hostname), cache, threshold)
            for hostname in sorted(cluster.nodes)) if pair is not None]
        # The most important hurt servers are relieved first, should the
        # budget or the room not suffice for all.
        pairs.sort(key=lambda pair: (priority(pair[0]), pair[0].uuid))
        plan = moves_mod.Moves(cluster, parameters, self.protected_hosts)
        crowded = {hurt.host for hurt, _noisy in pairs}
        receivers = _Receivers(plan, crowded, cache)
        for hurt, noisy in pairs:
            destination = (receivers.pick(noisy)
                           if plan.within_budget(noisy) else None)
            if destination is None:
                LOG.info('noisy_neighbor: no node can take %s (hurting %s '
                         'on %s)', noisy.uuid, hurt.uuid, hurt.host)
                continue
            plan.move(noisy, destination, 'live')
            receivers.receive(destination, noisy)
        solution = self.new_solution()
        if plan.made and moves_mod.improved_enough(
                len(pairs), len(pairs) - len(plan.made), parameters):
            plan.add_to(solution)
        return solution


class _Receivers:
    """The nodes that may take a noisy neighbour (destinations without
    one of their own), least cache in use first: the first of them with
    room is the one to pick, so most picks look at one node or a few
    rather than at every node of the cluster."""

    def __init__(self, plan, crowded, cache):
        self.plan = plan
        self.cache = cache
        self.by_cache = sorted((cache.on(hostname), hostname)
                               for hostname in plan.destinations()
                               if hostname not in crowded)

    def pick(self, instance):
        """The node with the least cache in use that has room for
        ``instance``, or None."""
        for _, hostname in self.by_cache:
            if self.plan.fits(instance, hostname):
                return hostname
        return None

    def receive(self, hostname, instance):
        """``instance`` goes to ``hostname``: its cache counts there."""
        was = (self.cache.on(hostname), hostname)
        del self.by_cache[bisect.bisect_left(self.by_cache, was)]
        self.cache.add(hostname, instance)
        bisect.insort(self.by_cache, (self.cache.on(hostname), hostname))


def priority(instance):
    """The server's watcher-priority: lower comes first; unset or not a
    number is the default."""
    value = instance.metadata_dict.get(PRIORITY_KEY)
    try:
        return int(value)
    except (TypeError, ValueError):
        return DEFAULT_PRIORITY


def _noisy_pair(servers, cache, threshold):
    """(hurt, noisy) on one node, or None."""
    if len(servers) < 2:
        return None
    change = {s.uuid: cache.change(s) for s in servers}
    hurt = [s for s in servers
            if change[s.uuid] is not None and change[s.uuid] < -threshold]
    if not hurt:
        return None
    victim = min(hurt, key=lambda s: (priority(s), change[s.uuid], s.uuid))
    noisy = [s for s in servers
             if change[s.uuid] is not None and change[s.uuid] > threshold
             and s is not victim and priority(s) >= priority(victim)
             and moves_mod.migration_type(s) == 'live']
    if not noisy:
        return None
    return victim, max(noisy, key=lambda s: (priority(s), change[s.uuid],
                                             s.uuid))


class _CacheUse:
    """Each server's L3 cache use now and over the period before, read
    with two queries for the whole cluster."""

    def __init__(self, cluster, metrics, period):
        servers = [instance for instance in cluster.instances.values()
                   if instance.host is not None]
        self.now, both = (
            inputs.of_servers(metrics, METRIC, servers, hint=CMT_HINT,
                              period=over, aggregate='mean',
                              granularity=GRANULARITY)
            for over in (period, 2 * period))
        self.before = {uuid: 2 * both[uuid] - value
                       for uuid, value in self.now.items() if uuid in both}
        self._per_host = {}
        for instance in servers:
            self._per_host[instance.host] = (
                self._per_host.get(instance.host, 0.0)
                + self.now.get(instance.uuid, 0.0))

    def change(self, instance):
        """Relative change of its cache use (-0.4: 40 % less), None
        without data or with nothing used before."""
        before = self.before.get(instance.uuid)
        if not before or before <= 0:
            return None
        return self.now[instance.uuid] / before - 1.0

    def on(self, hostname):
        return self._per_host.get(hostname, 0.0)

    def add(self, hostname, instance):
        self._per_host[hostname] = (self.on(hostname)
                                    + self.now.get(instance.uuid, 0.0))
