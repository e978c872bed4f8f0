"""What each instance-HA failover segment keeps to absorb a host failure,
before and after a plan.

A segment absorbs the failure of one of its hosts when its recovery
would find room for every server of that host:

``reserved_host`` (and ``rh_priority``, ``auto_priority``)
    the segment's free reserved hosts (reserved, held by no recovery,
    not on maintenance, up; those the plan itself holds are not free
    after it) pack the host's servers, as a recovery's
    ``claim_reserved_hosts`` packs them (common/instance_ha/packing.py);
``auto`` (and the priorities)
    Nova's scheduler puts them anywhere: the free room of the cloud's up,
    enabled hosts other than the failed one and those kept for failover
    holds them, counted in sum (not packed: an estimate that errs
    towards more room).

A segment's hosts that are down or on maintenance are not counted as
hosts that could fail (they have).
"""

from watcher_ha.common.instance_ha import packing
from watcher_ha.common.instance_ha import statuses
from watcher_ha.decision_engine.strategy import moves

RESOURCES = packing.RESOURCES
# How many hosts a segment's answer names that it would not absorb.
NAMED = 20


class Side:
    """One side of the plan (before or after): the model's ``state``, its
    ``nodes`` ({hostname: ComputeNode}), what each host holds (``used``,
    a sequence per resource) and can give (``capacity``), and the
    reserved hosts the plan holds by then (``held``)."""

    def __init__(self, state, nodes, used, capacity, held=()):
        self.state = state
        self.nodes = nodes
        self.used = used
        self.capacity = capacity
        self.held = frozenset(held)

    def free(self, hostname):
        return {resource: room - used for resource, room, used in zip(
            RESOURCES, self.capacity[hostname], self.used[hostname],
            strict=True)}

    def up(self, hostname):
        node = self.nodes.get(hostname)
        return node is not None and node.state == 'up'

    def servers_on(self, hostname):
        instances = self.state.instances
        return {uuid: packing.Size(*moves.need_of(instances[uuid]))
                for uuid in self.state.placement.get(hostname, ())}


def _spare(side, protected):
    """The free room, in sum, of the up, enabled hosts not kept for
    failover."""
    total = dict.fromkeys(RESOURCES, 0.0)
    for hostname, node in side.nodes.items():
        if (node.state == 'up' and node.status == 'enabled'
                and hostname not in protected
                and hostname in side.capacity):
            for resource, amount in side.free(hostname).items():
                total[resource] += max(0.0, amount)
    return total


def _absorbs(side, segment, spare, protected):
    """(hosts it would not absorb, the most reserved hosts one failure
    takes, reserved hosts free, their free room) of one segment."""
    methods = statuses.ROUNDS.get(segment['recovery_method'],
                                  (statuses.AUTO,))
    reserved = [host['name'] for host in segment['hosts']
                if host['reserved'] and not host['claimed_by']
                and not host['on_maintenance']
                and host['name'] not in side.held
                and side.up(host['name'])]
    free = {name: side.free(name) for name in reserved}
    room = {r: sum(f[r] for f in free.values()) for r in RESOURCES}
    largest = free[packing.largest_first(free)[0]] if free else None
    members = [host['name'] for host in segment['hosts']
               if host['name'] not in reserved
               and not host['on_maintenance'] and side.up(host['name'])]
    missed, most = [], 0
    for name in members:
        servers = side.servers_on(name)
        if not servers:
            continue
        need = {r: sum(getattr(size, r) for size in servers.values())
                for r in RESOURCES}
        fits = False
        if statuses.RESERVED_HOST in methods and free:
            taken = _reserved_hosts_taken(servers, need, free, room,
                                          largest)
            fits = taken is not None
            most = max(most, taken or 0)
        if not fits and statuses.AUTO in methods:
            own = (side.free(name) if name not in protected
                   and side.nodes[name].status == 'enabled'
                   else dict.fromkeys(RESOURCES, 0.0))
            fits = all(need[r] <= spare[r] - max(0.0, own[r])
                       for r in RESOURCES)
        if not fits:
            missed.append(name)
    return members, missed, most, reserved, room


def _reserved_hosts_taken(servers, need, free, room, largest):
    """How many reserved hosts the packing of ``servers`` takes, None if
    they do not all fit; without packing when the answer is plain (more
    than all the room: none; all in the largest host, which the packing
    tries first: one)."""
    if any(need[r] > room[r] for r in RESOURCES):
        return None
    if all(need[r] <= largest[r] for r in RESOURCES):
        return 1
    packed = packing.fewest_hosts(servers, free)
    return None if packed.unplaced else len(packed.hosts)


def capacity(segments, protected, before, after):
    """[{segment: its answer}] of ``segments`` ([{uuid, name,
    recovery_method, enabled, hosts: [{name, reserved, on_maintenance,
    claimed_by}]}]) for the plan's ``before`` and ``after`` Sides;
    ``protected``: the hosts kept for failover
    (db/reserved_hosts.kept_for_failover)."""
    spares = {id(side): _spare(side, protected | side.held)
              for side in (before, after)}
    found = []
    for segment in segments:
        answer = {'uuid': segment['uuid'], 'name': segment['name'],
                  'recovery_method': segment['recovery_method'],
                  'enabled': segment['enabled']}
        for key, side in (('before', before), ('after', after)):
            members, missed, most, reserved, room = _absorbs(
                side, segment, spares[id(side)], protected | side.held)
            answer[key] = {
                'hosts': len(members),
                'absorbed': len(members) - len(missed),
                'not_absorbed': missed[:NAMED],
                'reserved_hosts': reserved,
                'reserved_free': {r: round(room[r], 2) for r in RESOURCES},
                'most_reserved_hosts_one_failure_takes': most}
        found.append(answer)
    return found
