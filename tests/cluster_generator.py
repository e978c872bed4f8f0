"""Clusters the strategies were never tuned on, made from a seed: the
description format of the reference clusters (hosts, servers, their
static metrics; see strategy_clusters.from_reference), so that the
strategy benchmark feeds the same input to ours and to Watcher 17's.

The reference clusters are uniform: three host sizes in turn, every host
enabled, each server's CPU use drawn from one range. A cloud that has run
for a while is not, and the shapes below are the ones that made our
strategies slow or wrong (issue 32 item 9):

- five host sizes, with different reservations and CPU allocation ratios;
- idle hosts: full by allocation (memory nearly all given out) while
  their servers hardly use any CPU, so a balancing strategy sees them as
  the least loaded hosts although nothing fits on them;
- hot spots: hosts whose servers run near their limit, and single busy
  servers anywhere;
- empty hosts, and hosts with room and a moderate load;
- disabled compute services (still holding their servers), which may
  receive no server.

Standard library only, deterministic: the same (hosts, servers, seed)
give the same description on any machine.
"""

import heapq
import random
import uuid

# vcpus, memory_mb, disk_gb, vcpu_reserved, memory_mb_reserved,
# vcpu_ratio; weight among the hosts.
HOST_SIZES = (
    ((16, 65536, 500, 0, 2048, 4.0), 2),
    ((32, 131072, 1000, 2, 4096, 4.0), 3),
    ((48, 262144, 2000, 2, 8192, 2.0), 3),
    ((64, 393216, 4000, 4, 8192, 4.0), 2),
    ((96, 786432, 4000, 4, 16384, 1.5), 1),
)
# name, vcpus, memory_mb, disk_gb; weight among the servers.
FLAVORS = (
    (('s.tiny', 1, 1024, 10), 2),
    (('s.small', 1, 2048, 20), 4),
    (('s.medium', 2, 4096, 40), 4),
    (('s.large', 4, 8192, 80), 3),
    (('s.xlarge', 8, 16384, 160), 1),
    (('s.mem', 4, 32768, 80), 1),
    (('s.huge', 16, 65536, 320), 0.3),
)
# role: (share of the hosts, fraction of their memory given out,
# servers' CPU use in percent of their vcpus).
ROLES = {
    'idle': (0.15, (0.92, 1.0), (0.5, 4.0)),
    'hot': (0.10, (0.70, 0.95), (55.0, 100.0)),
    'empty': (0.07, (0.0, 0.0), (0.0, 0.0)),
    'normal': (0.68, (0.20, 0.80), (5.0, 45.0)),
}
DISABLED_SHARE = 0.04
# Busy servers anywhere, beside the hot hosts.
HOT_SERVER_SHARE = 0.02
PROJECTS = tuple('project-%02d' % n for n in range(8))
UNITS = {
    'instance_cpu_usage': 'percent of instance vcpus',
    'instance_ram_usage': 'MB', 'instance_ram_allocated': 'MB',
    'instance_root_disk_size': 'GB',
    'host_cpu_usage': 'percent of host vcpus (initial placement)',
    'host_ram_usage': 'KiB (initial placement)',
}


def generate(n_nodes, n_instances, seed=1):
    """The description of a cluster of ``n_nodes`` hosts and
    ``n_instances`` servers; ValueError when they do not fit."""
    rng = random.Random('cluster-%d-%d-%d' % (seed, n_nodes, n_instances))
    hosts = [_host(rng, i) for i in range(n_nodes)]
    roles = _roles(rng, n_nodes)
    flavors = rng.choices([f for f, _ in FLAVORS],
                          [w for _, w in FLAVORS], k=n_instances)
    placed = _place(rng, hosts, roles, flavors)
    instances = []
    for j, (flavor, h) in enumerate(placed):
        name, vcpus, memory_mb, disk_gb = flavor
        instances.append({
            'uuid': _uuid(rng), 'name': 'vm-%06d' % j,
            'host': hosts[h]['name'], 'vcpus': vcpus,
            'memory_mb': memory_mb, 'disk_gb': disk_gb, 'flavor': name,
            'state': 'active', 'project_id': rng.choice(PROJECTS)})
    role_of = {host['name']: role for host, role in zip(hosts, roles,
                                                       strict=True)}
    return {
        'seed': seed, 'n_nodes': n_nodes, 'n_instances': n_instances,
        'generator': 'tests/cluster_generator.py',
        'units': UNITS, 'hosts': hosts, 'instances': instances,
        'metrics': _metrics(rng, hosts, instances, role_of),
    }


def _uuid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _host(rng, i):
    (vcpus, memory_mb, disk_gb, vcpu_reserved, memory_reserved,
     vcpu_ratio) = rng.choices([s for s, _ in HOST_SIZES],
                               [w for _, w in HOST_SIZES])[0]
    disabled = rng.random() < DISABLED_SHARE
    return {
        'uuid': _uuid(rng), 'name': 'node-%04d' % i,
        'vcpus': vcpus, 'memory_mb': memory_mb, 'disk_gb': disk_gb,
        'vcpu_reserved': vcpu_reserved,
        'memory_mb_reserved': memory_reserved, 'disk_gb_reserved': 0,
        'vcpu_ratio': vcpu_ratio, 'memory_ratio': 1.0, 'disk_ratio': 1.0,
        'state': 'up', 'status': 'disabled' if disabled else 'enabled',
        'disabled_reason': 'hardware check' if disabled else None,
    }


def _roles(rng, n_nodes):
    names = list(ROLES)
    roles = rng.choices(names, [ROLES[r][0] for r in names], k=n_nodes)
    # The first host is the one host_maintenance drains in the
    # benchmark: a normal one, with servers to move and room elsewhere.
    roles[0] = 'normal'
    return roles


def _capacity(host):
    return ((host['vcpus'] - host['vcpu_reserved']) * host['vcpu_ratio'],
            (host['memory_mb'] - host['memory_mb_reserved'])
            * host['memory_ratio'],
            (host['disk_gb'] - host['disk_gb_reserved'])
            * host['disk_ratio'])


def _place(rng, hosts, roles, flavors):
    """[(flavor, host index)] in the order of ``flavors``: each host is
    filled up to its role's share of its memory, the targets scaled so
    that the servers given fill them; what is left over goes where room
    remains, most first."""
    capacity = [_capacity(h) for h in hosts]
    wanted = [rng.uniform(*ROLES[role][1]) * cap[1]
              for role, cap in zip(roles, capacity, strict=True)]
    # The idle hosts stay full; the others share what is left.
    idle = sum(w for w, role in zip(wanted, roles, strict=True)
               if role == 'idle')
    scale = (sum(f[2] for f in flavors) - idle) / max(
        sum(wanted) - idle, 1.0)
    targets = [w if role == 'idle' else min(w * scale, cap[1])
               for w, role, cap in zip(wanted, roles, capacity,
                                       strict=True)]
    used = [[0, 0, 0] for _ in hosts]
    order = list(range(len(flavors)))
    rng.shuffle(order)
    where = [None] * len(flavors)

    def fits(h, flavor):
        return all(used[h][r] + flavor[r + 1] <= capacity[h][r]
                   for r in range(3))

    def put(j, h):
        for r in range(3):
            used[h][r] += flavors[j][r + 1]
        where[j] = h

    hosts_order = list(range(len(hosts)))
    rng.shuffle(hosts_order)
    queue = iter(order)
    left = []
    for h in hosts_order:
        for j in queue:
            if used[h][1] + flavors[j][2] > targets[h] or not fits(
                    h, flavors[j]):
                left.append(j)
                break
            put(j, h)
    left.extend(queue)
    # The host with the most memory left first.
    room = [(used[h][1] - capacity[h][1], h) for h in range(len(hosts))
            if roles[h] != 'empty']
    heapq.heapify(room)
    for j in left:
        tried = []
        while room and not fits(room[0][1], flavors[j]):
            tried.append(heapq.heappop(room))
        if not room:
            raise ValueError('%d hosts cannot hold %d servers'
                             % (len(hosts), len(flavors)))
        _, h = heapq.heappop(room)
        put(j, h)
        heapq.heappush(room, (used[h][1] - capacity[h][1], h))
        for entry in tried:
            heapq.heappush(room, entry)
    return [(flavor, h) for flavor, h in zip(flavors, where, strict=True)]


def _metrics(rng, hosts, instances, role_of):
    servers = {}
    cores = {h['name']: 0.0 for h in hosts}
    ram = {h['name']: 0.0 for h in hosts}
    for instance in instances:
        low, high = ROLES[role_of[instance['host']]][2]
        if rng.random() < HOT_SERVER_SHARE:
            low, high = 80.0, 100.0
        cpu = round(rng.uniform(low, high), 2)
        used_ram = round(instance['memory_mb'] * rng.uniform(0.3, 0.95), 1)
        servers[instance['uuid']] = {
            'instance_cpu_usage': cpu,
            'instance_ram_usage': used_ram,
            'instance_ram_allocated': float(instance['memory_mb']),
            'instance_root_disk_size': float(instance['disk_gb']),
        }
        cores[instance['host']] += instance['vcpus'] * cpu / 100.0
        ram[instance['host']] += used_ram
    return {'instances': servers, 'hosts': {
        h['name']: {
            'host_cpu_usage': round(min(
                100.0, 100.0 * cores[h['name']] / h['vcpus']), 3),
            'host_ram_usage': round(ram[h['name']] * 1024.0, 1)}
        for h in hosts}}
