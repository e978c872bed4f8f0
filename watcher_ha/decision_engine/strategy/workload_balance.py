"""workload_balance: move servers off the compute nodes whose CPU or RAM
usage is at or above a threshold, onto nodes that stay below it.

A node's usage is the sum of its servers' usage (``instance_cpu_usage``
as cores, or ``instance_ram_usage`` in MB, per ``metrics``), in percent
of the node's vcpus or memory. The busiest node at or above
``threshold`` gives up the running server that brings it closest to the
cluster's average workload without going below it; the server goes live
to the least busy node that has room for it and stays below the
threshold with it. That is Watcher's step, and Watcher plans one such
migration per audit; here the step repeats, the busiest node first each
time, until no node at or above the threshold has a server that can go
anywhere (or the audit's budget is spent). Every move takes a source
down towards the average and leaves its destination below the
threshold, so a server moves at most once and the plan always ends.
"""

import bisect
import collections
import heapq
import math
import operator
import statistics

from oslo_log import log

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import first_fit
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import moves as moves_mod
from watcher_ha.decision_engine.strategy import parameter_specs

LOG = log.getLogger(__name__)

METRICS = ('instance_cpu_usage', 'instance_ram_usage')


class WorkloadBalance(base.Strategy):
    name = 'workload_balance'
    display_name = 'Workload Balance Migration Strategy'
    goal = 'workload_balancing'
    data_models = ('compute',)
    # Watcher's, as for every strategy of this goal.
    planner = 'workload_stabilization'
    parameters_spec = moves_mod.parameters_spec({
        'metrics': {
            'description': 'Workload balance based on metrics: cpu or ram '
                           'utilization',
            'type': 'string',
            # Watcher's schema says "choice", which JSON Schema ignores;
            # execute() checks the value.
            'choice': list(METRICS),
            'default': 'instance_cpu_usage'},
        'threshold': parameter_specs.number(
            'Workload threshold for migration - used for source and '
            'destination hosts. It is always a percentage value.', 25.0),
        'period': parameter_specs.period(
            300, parameter_specs.CEILOMETER_PERIOD),
        'granularity': parameter_specs.granularity(),
    })

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        metric = parameters['metrics']
        if metric not in METRICS:
            raise base.StrategyError(
                'metrics %r is not one workload_balance balances; use %s'
                % (metric, ' or '.join(METRICS)))
        inputs.require_metrics(metrics, self.name, metric)
        load = _Load(cluster, metric)
        servers = [i for hostname in load.capacity
                   for i in cluster.instances_on(hostname)]
        usage = inputs.of_servers(metrics, metric, servers,
                                  period=parameters['period'],
                                  granularity=parameters['granularity'])
        if len(usage) < len(servers):
            LOG.warning('workload_balance: no %s for %d servers; they are '
                        'neither counted nor moved', metric,
                        len(servers) - len(usage))
        load.add(servers, usage)

        solution = self.new_solution()
        solution.set_indicator('instances_count', len(cluster.instances))
        before = load.deviation()
        plan = moves_mod.Moves(cluster, parameters, self.protected_hosts)
        _balance(plan, load, parameters['threshold'])
        after = load.deviation()
        solution.set_indicator('standard_deviation_before_audit', before)
        if not moves_mod.improved_enough(before, after, parameters):
            LOG.info('workload_balance: %d migrations take the deviation '
                     'of %s from %.4f to %.4f only, less than '
                     'min_improvement; proposing no plan', len(plan.made),
                     metric, before, after)
            solution.set_indicator('standard_deviation_after_audit', before)
            solution.set_indicator('instance_migrations_count', 0)
            return solution
        plan.add_to(solution)
        solution.set_indicator('standard_deviation_after_audit', after)
        solution.set_indicator('instance_migrations_count', len(plan.made))
        return solution


class _Load:
    """Workload per node (cores, or MB of RAM) as the plan moves
    servers: of the nodes whose compute service is up and enabled, those
    with some capacity of the metric's resource."""

    def __init__(self, cluster, metric):
        self.is_cpu = metric == 'instance_cpu_usage'
        # Watcher's usage is of the node's physical vcpus or memory, not
        # of what the allocation ratios let Placement hand out.
        # In name order, as the servers on each: the sums of floats, and
        # so the plan, do not depend on the order of a hash map.
        self.capacity = {}
        for hostname, node in sorted(cluster.nodes.items()):
            amount = node.vcpus if self.is_cpu else node.memory_mb
            if node.state == 'up' and node.status == 'enabled' and amount:
                self.capacity[hostname] = amount
        self.load = dict.fromkeys(self.capacity, 0.0)
        # uuid -> the server's workload, for those with data.
        self.of = {}
        # hostname -> its servers with data, before any move.
        self.measured = collections.defaultdict(list)

    def add(self, servers, usage):
        # Once per server of the cluster: the lookups are made once.
        of, load, measured = self.of, self.load, self.measured
        is_cpu = self.is_cpu
        for server in servers:
            value = usage.get(server.uuid)
            if value is None:
                continue
            if is_cpu:
                value = value * server.vcpus / 100.0
            of[server.uuid] = value
            load[server.host] += value
            measured[server.host].append(server)

    def percent(self, hostname):
        return 100.0 * self.load[hostname] / self.capacity[hostname]

    def average(self):
        """Watcher's average: workload per node, not usage."""
        return sum(self.load.values()) / len(self.load) if self.load else 0

    def deviation(self):
        """Standard deviation of the nodes' usage, as fractions."""
        if not self.load:
            return 0.0
        return statistics.pstdev(self.percent(h) / 100.0 for h in self.load)

    def move(self, server, source, destination):
        self.load[source] -= self.of[server.uuid]
        self.load[destination] += self.of[server.uuid]


def _balance(plan, load, threshold):
    """Move servers, busiest source first, until none can go."""
    average = load.average()
    sources = [(-load.percent(h), h) for h in load.load
               if load.percent(h) >= threshold]
    heapq.heapify(sources)
    movable = {h: _Movable(load.measured[h], load) for _, h in sources}
    targets = _Targets(load, threshold)
    while sources and plan.budget_left() != 0:
        _, source = heapq.heappop(sources)
        moved = _move_one(plan, load, source, average, movable[source],
                          targets)
        if moved and load.percent(source) >= threshold:
            heapq.heappush(sources, (-load.percent(source), source))


def _move_one(plan, load, source, average, movable, targets):
    """Move the server of ``source`` that brings it closest to
    ``average`` without going below it, to the least busy target it
    fits on; the next closest if that one fits nowhere. Whether one
    moved."""
    excess = load.load[source] - average
    # No target can take more than the most headroom any has.
    start = movable.first_at_most(min(excess, targets.most_headroom()))
    # Targets only lose room as the plan goes: a server that fits on
    # none now never will, and is not tried again.
    nowhere = []
    moved = False
    for position in range(start, len(movable.servers)):
        server = movable.servers[position]
        if not plan.within_budget(server):
            continue
        destination = targets.find(plan, server)
        if destination is None:
            nowhere.append(position)
            continue
        plan.move(server, destination, 'live')
        targets.receive(plan, server, source, destination)
        nowhere.append(position)
        moved = True
        break
    for position in reversed(nowhere):
        movable.remove(position)
    return moved


class _Movable:
    """The running servers of a source with a known workload, biggest
    first (uuid order among equals): the first one no bigger than the
    source's excess over the average is the one that brings it closest
    to the average. Sources only lose servers, so the order is made
    once."""

    def __init__(self, servers, load):
        self.servers = sorted(
            (s for s in servers if s.state == 'active'),
            key=lambda s: (-load.of[s.uuid], s.uuid))
        self._keys = [-load.of[s.uuid] for s in self.servers]

    def first_at_most(self, workload):
        """The position in ``servers`` of the first one of at most
        ``workload`` (not strictly less: Watcher takes a server that
        brings its node exactly to the average)."""
        return bisect.bisect_left(self._keys, -workload)

    def remove(self, position):
        del self.servers[position]
        del self._keys[position]


class _Targets:
    """The nodes below the threshold, least busy first, with the room
    each has under it (its headroom). A node sending servers never
    receives and the other way round, so no server moves twice.

    The least busy nodes are often idle but full by allocation: walking
    down the nodes by usage, each server would pass them all. So the
    nodes that have not received yet, whose order is still the one they
    started in, are leaves of a first_fit tree in that order (room:
    Placement's free vcpus, memory and disk, then the headroom), which
    skips every run of nodes where the server does not fit; the few
    that have received, whose usage grew, are kept apart in usage
    order. The least busy node that fits is the better of the first
    of each."""

    def __init__(self, load, threshold):
        self.load = load
        self.threshold = threshold
        self.below = [h for _, h in sorted(
            (load.percent(h), h) for h in load.load
            if load.percent(h) < threshold)]
        self._untouched = None
        # (usage, hostname) of the nodes that received, in order, and
        # the room of each (a first_fit tree, to know at once whether a
        # server fits on any of them).
        self._received = []
        self._received_room = None
        # Placement's need (vcpus, memory, disk) of servers that fitted
        # nowhere -> the least workload among them. Targets only lose
        # room, so a server needing as much of each and of workload
        # fits nowhere either, now or later.
        self._nowhere = {}
        # Max-heap of (-headroom, hostname); an entry whose headroom is
        # no longer the node's is skipped when it comes up.
        self._roomiest = [(-self._headroom(h), h) for h in self.below]
        heapq.heapify(self._roomiest)

    def _headroom(self, hostname):
        return (self.threshold / 100.0 * self.load.capacity[hostname]
                - self.load.load[hostname])

    def _room(self, plan, hostname):
        return tuple(plan.free(hostname, r) for r in moves_mod.RESOURCES) \
            + (self._headroom(hostname),)

    def most_headroom(self):
        while self._roomiest:
            headroom, hostname = self._roomiest[0]
            if -headroom == self._headroom(hostname):
                return -headroom
            heapq.heappop(self._roomiest)
        return 0.0

    def find(self, plan, server):
        """The least busy target with room for ``server`` that stays
        below the threshold with it; or None."""
        if self._untouched is None:
            self._untouched = first_fit.FirstFit(
                {h: self._room(plan, h) for h in self.below})
            nowhere = (first_fit.NO_ROOM,) * (len(moves_mod.RESOURCES) + 1)
            self._received_room = first_fit.FirstFit(
                dict.fromkeys(self.below, nowhere))
        workload = self.load.of[server.uuid]
        placement = moves_mod.need_of(server)
        if self._fits_nowhere(placement, workload):
            return None
        # Strictly more headroom than the server's workload.
        need = placement + (math.nextafter(workload, math.inf),)
        found = self._find(plan, server, workload, need)
        # A server pinned to a zone may fit nowhere for its zone alone.
        if found is None and not server.pinned_availability_zone:
            self._nowhere[placement] = min(
                workload, self._nowhere.get(placement, math.inf))
        return found

    def _fits_nowhere(self, placement, workload):
        """Whether a server needing ``placement`` and ``workload``
        needs as much as one that fitted nowhere."""
        return any(workload >= least and all(map(operator.ge, placement,
                                                 failed))
                   for failed, least in self._nowhere.items())

    def _find(self, plan, server, workload, need):
        """find(), once the shortcut did not answer."""

        def fits(hostname):
            return plan.fits(server, hostname)

        best = self._untouched.first(need, accept=fits)
        if best is not None:
            best = (self.load.percent(best), best)
        # The nodes that received are busier than they were; look there
        # only if one is less busy than the best found, and has room.
        room = self._received_room
        if not self._received or (best is not None
                                  and self._received[0] >= best) or \
                room.first(need, accept=fits) is None:
            return best and best[1]
        for usage, hostname in self._received:
            if best is not None and (usage, hostname) >= best:
                break
            if all(map(operator.ge, room.room(hostname), need)) and fits(
                    hostname):
                best = (usage, hostname)
                break
        return best and best[1]

    def receive(self, plan, server, source, destination):
        """Count ``server`` moved (``plan`` has it already)."""
        was = (self.load.percent(destination), destination)
        self.load.move(server, source, destination)
        self._received_room.set(destination, self._room(plan, destination))
        if destination in self._untouched:
            self._untouched.drop(destination)
        at = bisect.bisect_left(self._received, was)
        if at < len(self._received) and self._received[at] == was:
            del self._received[at]
        bisect.insort(self._received,
                      (self.load.percent(destination), destination))
        heapq.heappush(self._roomiest,
                       (-self._headroom(destination), destination))
