"""What the strategies driven by one hardware reading per host
(outlet_temperature, uniform_airflow) share.

Each splits the enabled, up nodes at a threshold of one host metric
(read in one bulk call): the hot ones, at or above it, give servers
away, hottest first; the cool ones, below it, receive them, coolest
first. A node without data is neither, as in Watcher. Neither Watcher
strategy can forecast how a move changes the reading, so their
objective, for the audit's hysteresis, is the load left on the hot
nodes: the vCPUs of their servers.
"""

import bisect

from watcher_ha.decision_engine.strategy import base
from watcher_ha.decision_engine.strategy import inputs
from watcher_ha.decision_engine.strategy import moves as moves_mod


class HotNodesStrategy(base.Strategy):
    """The plan of such a strategy: each hot node, hottest first, is
    relieved (``relief``) onto the cool ones until the budget is spent;
    the plan is proposed if it moves enough load off the hot nodes."""

    data_models = ('compute',)
    # The host metric read, and the parameter holding its threshold.
    metric: str
    threshold: str

    def execute(self, audit, parameters, models=None, metrics=None):
        cluster = inputs.compute_model(models, self.name)
        solution = self.new_solution()
        nodes = candidates(cluster)
        if not nodes:
            return solution
        values = read(metrics, self.metric, nodes, parameters, self.name)
        plan = moves_mod.Moves(cluster, parameters, self.protected_hosts)
        hot, cool = split(values, parameters[self.threshold], plan)
        if not hot or not cool:
            return solution
        relieve = self.relief(metrics, cluster, hot, parameters)
        coolest = Coolest(plan, cool)
        for source in hot:
            if plan.budget_left() == 0:
                break
            relieve(plan, coolest, source)
        before = load(cluster, hot)
        if moves_mod.improved_enough(before, before - moved_load(plan),
                                     parameters):
            plan.add_to(solution)
        return solution

    def relief(self, metrics, cluster, hot, parameters):
        """What treats one hot node: ``f(plan, coolest, source)``; by
        default Watcher's single live move of an active server."""
        return move_one


def candidates(cluster):
    """The nodes Watcher reads the metric of: enabled and up."""
    return [node for node in cluster.nodes.values()
            if node.status == 'enabled' and node.state == 'up']


def read(metrics, metric, nodes, parameters, strategy):
    """{hostname: value} of ``metric`` for ``nodes``, over the audit's
    period and granularity."""
    inputs.require_metrics(metrics, strategy, metric)
    return inputs.of_hosts(metrics, metric, nodes,
                           period=parameters['period'],
                           granularity=parameters['granularity'])


def split(values, threshold, plan):
    """(hot hostnames, hottest first; cool hostnames that may receive
    servers, coolest first)."""
    hot = sorted((h for h, v in values.items() if v >= threshold),
                 key=lambda h: (-values[h], h))
    destinations = set(plan.destinations())
    cool = sorted((h for h, v in values.items()
                   if v < threshold and h in destinations),
                  key=lambda h: (values[h], h))
    return hot, cool


def load(cluster, hostnames):
    """The objective: vCPUs of the servers on ``hostnames``."""
    return sum(instance.vcpus for hostname in hostnames
               for instance in cluster.instances_on(hostname))


def moved_load(plan):
    return sum(instance.vcpus for instance, _, _, _ in plan.made)


def live_movable(instance):
    """Watcher's choice for a single move: an active server, live."""
    return instance.state == 'active'


class Coolest:
    """The cool destinations of one plan, coolest first, but each one
    that has not received a server of this plan before any that has:
    without a forecast of the heat a move brings, one plan should not
    pile every server onto the single coolest node.

    It keeps the most room any of them has of each resource, so that a
    server too big for all of them is turned down at once rather than
    after trying each (on a full cluster that is most of them)."""

    def __init__(self, plan, cool):
        self.plan = plan
        self.fresh = list(cool)
        self.rank = {hostname: i for i, hostname in enumerate(cool)}
        self.received = []
        # resource -> (the most free, the node that has it), or None
        # until asked again after that node received a server.
        self._most = None

    def copy(self):
        other = Coolest(self.plan, [])
        other.fresh = list(self.fresh)
        other.rank = self.rank
        other.received = list(self.received)
        other._most = self._most
        return other

    def _could_fit(self, instance):
        if self._most is None:
            hosts = self.fresh + self.received
            capacity, used = self.plan.capacity, self.plan.used
            self._most = {
                resource: max(((capacity[h][resource] - used[h][resource],
                                h) for h in hosts), default=(0, None))
                for resource in moves_mod.RESOURCES}
        return all(getattr(instance, resource) <= most
                   for resource, (most, _) in self._most.items())

    def pick(self, instance, fits):
        """The first node in order that ``fits(instance, node)`` (the
        plan's Moves.fits, or a trial's stricter check), or None."""
        if not self._could_fit(instance):
            return None
        for hostname in self.fresh:
            if fits(instance, hostname):
                return hostname
        for hostname in self.received:
            if fits(instance, hostname):
                return hostname
        return None

    def receive(self, hostname):
        """``hostname`` got a server (the plan's or a trial's): later
        picks prefer the others, and its room is less."""
        if self._most is not None and any(
                holder == hostname for _, holder in self._most.values()):
            self._most = None
        if hostname in self.rank and hostname in self.fresh:
            self.fresh.remove(hostname)
            bisect.insort(self.received, hostname, key=self.rank.__getitem__)


def move_one(plan, coolest, source):
    """Move the largest active server of ``source`` that the budget
    lets go and that fits a cool node, live; True if one moved."""
    servers = sorted((i for i in plan.instances_on(source)
                      if live_movable(i)),
                     key=lambda i: (-i.vcpus, -i.memory_mb, i.uuid))
    for instance in servers:
        if not plan.within_budget(instance):
            continue
        destination = coolest.pick(instance, plan.fits)
        if destination is not None:
            plan.move(instance, destination, 'live')
            coolest.receive(destination)
            return True
    return False


def move_all(plan, coolest, source):
    """Move every server of ``source`` Nova can move (live if it runs,
    cold if stopped), largest first, if the cool nodes have room for all
    of them; else none. The budget may stop it part way: the rest waits
    for a later round. True if all fitted."""
    servers = sorted((i for i in plan.instances_on(source)
                      if moves_mod.migration_type(i) is not None),
                     key=lambda i: (-i.vcpus, -i.memory_mb, i.uuid))
    trial = coolest.copy()
    pending = {}

    def fits(instance, hostname):
        taken = pending.get(hostname, {})
        return plan.fits(instance, hostname) and all(
            plan.free(hostname, r) - taken.get(r, 0) >= getattr(instance, r)
            for r in moves_mod.RESOURCES)

    chosen = []
    for instance in servers:
        destination = trial.pick(instance, fits)
        if destination is None:
            return False
        taken = pending.setdefault(destination, {})
        for resource in moves_mod.RESOURCES:
            taken[resource] = taken.get(resource, 0) + getattr(instance,
                                                               resource)
        trial.receive(destination)
        chosen.append((instance, destination))
    for instance, destination in chosen:
        if plan.within_budget(instance):
            plan.move(instance, destination,
                      moves_mod.migration_type(instance))
            coolest.receive(destination)
    return True
