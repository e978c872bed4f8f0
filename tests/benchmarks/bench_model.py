#!/usr/bin/env python3
"""The cluster data model in-process: build, notification apply rate,
snapshot time and memory.

    .venv/bin/python tests/benchmarks/bench_model.py [--hosts 1000]
        [--servers 50000] [--events 100000]

Builds a model of --hosts compute nodes and --servers servers (the way a
resync does), then applies --events Nova ``instance.update`` notifications
(each one a real InstanceUpdatePayload from the reference captures, for a
random server, half of them moving it to another host) through the same
code the listener feeds, and takes snapshots while it does. Prints:
build time, apply rate (target 20,000 events/s), snapshot time (target
under 20 ms at 50,000 servers), model memory (target under 300 MB for
1,000 hosts / 50,000 servers, measured with tracemalloc).
"""

import argparse
import copy
import datetime
import pathlib
import random
import statistics
import sys
import time
import tracemalloc

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import nova_samples  # noqa: E402
from watcher_ha.decision_engine.model import cluster  # noqa: E402
from watcher_ha.decision_engine.model import elements  # noqa: E402
from watcher_ha.decision_engine.model import nova_events  # noqa: E402
from watcher_ha.decision_engine.model import state  # noqa: E402

T0 = datetime.datetime(2026, 11, 22, 6, 0, 0)


def build(hosts, servers, rng):
    names = ['compute-%04d' % i for i in range(hosts)]
    changes = state.ClusterState().changes()
    for name in names:
        changes.put_node(elements.ComputeNode(
            hostname=name, uuid='%032x' % rng.getrandbits(128), vcpus=64,
            memory_mb=262144, disk_gb=2000, vcpu_ratio=4.0, stamp=T0))
    uuids = []
    for index in range(servers):
        uuid = '%08x-0000-4000-8000-%012x' % (index, index)
        uuids.append(uuid)
        changes.put_instance(elements.Instance(
            uuid=uuid, name='vm-%06d' % index, host=rng.choice(names),
            vcpus=2, memory_mb=4096, disk_gb=40,
            project_id='p%d' % (index % 50), stamp=T0))
    return changes.state(), names, uuids


def events(count, names, uuids, rng):
    template = nova_samples.live()['instance.update']
    made = []
    for index in range(count):
        payload = copy.deepcopy(template['payload'])
        data = payload['nova_object.data']
        data['uuid'] = rng.choice(uuids)
        data['host'] = data['node'] = rng.choice(names)
        data['state'] = 'active'
        made.append(nova_events.Event(
            'instance.update', 'nova-compute:%s' % data['host'], payload,
            T0 + datetime.timedelta(microseconds=index + 1)))
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--servers', type=int, default=50000)
    parser.add_argument('--events', type=int, default=100000)
    args = parser.parse_args()
    rng = random.Random(42)

    tracemalloc.start()
    started = time.perf_counter()
    fresh, names, uuids = build(args.hosts, args.servers, rng)
    model = cluster.ClusterModel()
    model.begin_resync()
    model.finish_resync(fresh)
    build_seconds = time.perf_counter() - started
    memory, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    todo = events(args.events, names, uuids, rng)
    snapshot_times = []
    started = time.perf_counter()
    for index, event in enumerate(todo):
        model.apply(event)
        if index % 10000 == 0:
            # Mean of 1,000 snapshots: one is too quick for the clock.
            taken = time.perf_counter()
            for _ in range(1000):
                snapshot = model.snapshot()
            snapshot_times.append((time.perf_counter() - taken) / 1000)
    apply_seconds = time.perf_counter() - started - sum(
        snapshot_times) * 1000
    # A snapshot is consistent: reading it whole after later updates.
    taken = time.perf_counter()
    snapshot = model.snapshot()
    placed = sum(len(snapshot.placement[h]) for h in snapshot.placement)
    walk_seconds = time.perf_counter() - taken
    assert placed == len(snapshot.instances) == args.servers

    print('cluster data model, %d hosts / %d servers, %d events'
          % (args.hosts, args.servers, args.events))
    print('%-38s %12s %12s' % ('measure', 'value', 'target'))
    rows = [
        ('build (resync swap), s', '%.2f' % build_seconds, ''),
        ('model memory, MB', '%.0f' % (memory / 2 ** 20), '< 300'),
        ('apply rate, events/s', '%.0f' % (args.events / apply_seconds),
         '>= 20000'),
        ('snapshot, ms (median of %d)' % len(snapshot_times),
         '%.5f' % (statistics.median(snapshot_times) * 1000), '< 20'),
        ('walk every server of a snapshot, ms',
         '%.1f' % (walk_seconds * 1000), ''),
    ]
    for row in rows:
        print('%-38s %12s %12s' % row)


if __name__ == '__main__':
    main()
