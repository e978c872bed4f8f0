"""A plan's actions run on a copy of the compute model, in the order an
applier runs them: what each host holds before, after, and at the plan's
worst moment.

The copy is the model's current state (a ClusterState: taking it is
O(1), and nothing the projection does reaches the live model), changed
through its own ``Changes`` overlay. The plan's order is the action
graph's: an action starts once its parents ended, so the actions run in
steps, an action one step after the last of its parents (the planner's
lanes run side by side). Within a step each action takes what it takes
from its start (effects.py: a migration holds its destination while its
source still holds the server, as Placement holds both ends during a
migration); at the step's end the sources are given back and the model
reads as the actions left it. So the load of a host at a step is what
it holds while that step's actions run, and the worst moment is the
highest such load of any host the plan touches (a source still holds
what leaves it), naming the step and the action whose start brought it
there (for a source, the first action of the step that moves off it).

A host's load is its highest share, in percent, of the three resources
against what it can give (totals less reserved, times the allocation
ratios, as Placement counts them).
"""

import collections
import dataclasses

from watcher_ha.common import exception
from watcher_ha.decision_engine.strategy import moves
from watcher_ha.decision_engine.what_if import effects

RESOURCES = moves.RESOURCES


class Cycle(exception.Conflict):
    """The plan's parents make a cycle: no applier could run it (409)."""
    error_code = 'action_plan_cycle'
    msg_fmt = ('The parents of %(count)d action(s) of the plan make a '
               'cycle: no applier could run it.')


def steps(actions):
    """The plan's ``actions`` ({uuid, parents, ...}, in creation order)
    as the steps an applier runs them in: each action one step after the
    last of its parents (parents outside the plan are ignored)."""
    known = {action['uuid'] for action in actions}
    waiting = {action['uuid']: {p for p in action['parents'] or ()
                                if p in known} for action in actions}
    children = collections.defaultdict(list)
    for uuid, parents in waiting.items():
        for parent in parents:
            children[parent].append(uuid)
    depth = {}
    ready = [action['uuid'] for action in actions
             if not waiting[action['uuid']]]
    for uuid in ready:
        depth[uuid] = 0
    while ready:
        done = ready.pop()
        for child in children[done]:
            depth[child] = max(depth.get(child, 0), depth[done] + 1)
            waiting[child].discard(done)
            if not waiting[child]:
                ready.append(child)
    if len(depth) < len(actions):
        raise Cycle(count=len(actions) - len(depth))
    found = collections.defaultdict(list)
    for action in actions:
        found[depth[action['uuid']]].append(action)
    return [found[number] for number in sorted(found)]


def load_of(used, capacity):
    """(percent, resource) of the resource a host has the highest share
    of in use; (0.0, None) for a host with no capacity at all."""
    best = (0.0, None)
    for resource, amount, room in zip(RESOURCES, used, capacity,
                                      strict=True):
        if room > 0:
            share = 100.0 * amount / room
            if share > best[0] or best[1] is None:
                best = (share, resource)
    return best


@dataclasses.dataclass(frozen=True)
class Moment:
    """The highest load of a host while the plan runs: in ``step`` (1 is
    the first), once ``action`` (a row of the plan) started, with
    ``running`` actions in that step."""
    host: str
    percent: float
    resource: str | None
    step: int
    action: dict
    running: int


@dataclasses.dataclass
class Outcome:
    """What the projection made of one action."""
    action: dict
    effect: effects.Effect
    step: int


class Projection:
    """The plan's actions applied to a copy of ``state`` (a
    ClusterState). ``flavors``: {flavor id or name: (vcpus, memory_mb,
    disk_gb)} for resizes and new members (a callable looked up lazily
    may stand for the dict)."""

    def __init__(self, state, actions, flavors=None):
        self.before = state
        self._flavors = flavors or {}
        self._changes = state.changes()
        self.nodes = dict(state.nodes.items())
        self.capacity = {hostname: tuple(node.capacity(r)
                                         for r in RESOURCES)
                         for hostname, node in self.nodes.items()}
        self.used = {hostname: list(moves.used_on(state, node).values())
                     for hostname, node in self.nodes.items()}
        self.used_before = {hostname: tuple(used)
                            for hostname, used in self.used.items()}
        self._claimed = {}
        self.held = ()
        self.outcomes = []
        self.worst = None
        self.touched = set()
        self.steps = steps(actions)
        for number, step in enumerate(self.steps, start=1):
            self._run(number, step)
        self.after = self._changes.state()

    # The view the rules read (effects.py).

    def server(self, uuid):
        return self._changes.instance(uuid) if uuid else None

    def node(self, hostname):
        return self.nodes.get(hostname)

    def flavor(self, ref):
        if callable(self._flavors):
            return self._flavors(ref)
        return self._flavors.get(ref)

    def claimed_for(self, uuid):
        return self._claimed.get(uuid)

    def hold_reserved(self, placement, hosts):
        self._claimed.update(placement)
        self.held += tuple(hosts)

    def schedule(self, size, exclude=(), zone=None):
        """The host Nova's default weighers would choose for ``size``:
        up, enabled, with room (in ``zone`` if given), the most free
        memory (the first by name of those with as much); None if there
        is none."""
        best, most = None, None
        for hostname, node in self.nodes.items():
            if (node.status != 'enabled' or node.state != 'up'
                    or hostname in exclude
                    or (zone and node.availability_zone != zone)):
                continue
            free = self.free(hostname)
            if all(f >= n for f, n in zip(free, size, strict=True)) and (
                    most is None or free[1] > most
                    or (free[1] == most and hostname < best)):
                best, most = hostname, free[1]
        return best

    def free(self, hostname):
        return tuple(room - used for room, used in zip(
            self.capacity[hostname], self.used[hostname], strict=True))

    # Running the steps.

    def _add(self, hostname, size, sign):
        used = self.used.get(hostname)
        if used is None:
            return
        for index, amount in enumerate(size):
            used[index] += sign * amount
        self.touched.add(hostname)

    def _run(self, number, step):
        started = []
        peaks = {}
        for action in step:
            effect = effects.effect(self, action['action_type'],
                                    action['input_parameters'] or {})
            self.outcomes.append(Outcome(action, effect, number))
            for hostname, size in effect.claims:
                self._add(hostname, size, 1)
                peaks[hostname] = action
            for hostname, _ in effect.releases:
                peaks.setdefault(hostname, action)
            started.append(effect)
        for hostname, action in peaks.items():
            if hostname not in self.capacity:
                continue
            percent, resource = load_of(self.used[hostname],
                                        self.capacity[hostname])
            if self.worst is None or percent > self.worst.percent:
                self.worst = Moment(hostname, percent, resource, number,
                                    action, len(step))
        for effect in started:
            for hostname, size in effect.releases:
                self._add(hostname, size, -1)
            for edit in effect.edits:
                self._edit(*edit)

    def _edit(self, kind, key, values):
        changes = self._changes
        if kind == 'node':
            node = self.nodes.get(key)
            if node is not None:
                node = dataclasses.replace(node, **values)
                self.nodes[key] = node
                changes.put_node(node)
                self.touched.add(key)
        elif kind == 'new':
            changes.put_instance(values)
        else:
            server = changes.instance(key)
            if server is None:
                return
            if kind == 'gone':
                changes.remove_instance(key, server.stamp, final=True)
            else:
                changes.put_instance(dataclasses.replace(server, **values))

    # What it found.

    def moved(self):
        """[(server, source, destination)] of the plan's server moves, in
        the order they run."""
        return [move for outcome in self.outcomes
                if outcome.action['action_type'] in effects.MOVES
                for move in outcome.effect.moves]

    def differences(self):
        """[(action, how the model differs from what it expected)]."""
        return [(outcome.action, outcome.effect.stale)
                for outcome in self.outcomes if outcome.effect.stale]

    def changed_hosts(self):
        """Hostnames whose usage, servers or node changed, by name."""
        before, after = self.before, self.after
        return sorted(
            hostname for hostname in self.touched
            if hostname in self.capacity and (
                tuple(self.used[hostname]) != self.used_before[hostname]
                or before.placement.get(hostname)
                != after.placement.get(hostname)
                or before.node(hostname) != after.node(hostname)))
