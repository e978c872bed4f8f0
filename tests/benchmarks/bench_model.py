#!/usr/bin/env python3
"""The cluster data model in-process: build, notification apply rate,
snapshot time and memory, side by side with OpenStack Watcher 17's model.

    .venv/bin/python tests/benchmarks/bench_model.py [--hosts 1000]
        [--servers 50000] [--events 100000] [--batch 256]
        [--watcher-events 1000]
        [--watcher-venv .bench/watcher17-venv | --no-watcher]

Builds a model of --hosts compute nodes and --servers servers (the way a
resync does), then applies --events Nova ``instance.update`` notifications
(each one a real InstanceUpdatePayload from the reference captures, for a
random server, moving it to a random host) through the same code the
listener feeds, in its batches (--batch), with the garbage collector paced
as a decision engine paces it, and takes snapshots while it does. Prints:
build time, apply rate (target 20,000 events/s), snapshot time (target
under 20 ms at 50,000 servers), model memory (target under 300 MB for
1,000 hosts / 50,000 servers, measured with tracemalloc).

Then the same cluster and the first --watcher-events of the same events
go to watcher17_model.py, run in a virtualenv with python-watcher==17.0.0
(made under .bench/ on first use), which measures the same with Watcher's
own model classes and notification handler; the table shows both.
"""

import argparse
import copy
import datetime
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import nova_samples  # noqa: E402
from tests.benchmarks import watcher17  # noqa: E402
from watcher_ha.decision_engine.model import cluster  # noqa: E402
from watcher_ha.conf import CONF  # noqa: E402
from watcher_ha.decision_engine.feed import nova_events  # noqa: E402
from watcher_ha.decision_engine.model import elements  # noqa: E402
from watcher_ha.decision_engine.model import garbage_collection  # noqa: E402
from watcher_ha.decision_engine.model import state  # noqa: E402

T0 = datetime.datetime(2026, 11, 22, 6, 0, 0)

WATCHER_SCRIPT = pathlib.Path(__file__).resolve().with_name(
    'watcher17_model.py')


def build(hosts, servers, rng, stamp=T0):
    """A fresh state of ``hosts`` nodes and ``servers`` servers, each on
    a random node, every element stamped ``stamp``: (state, hostnames,
    server uuids)."""
    names = ['compute-%04d' % i for i in range(hosts)]
    changes = state.ClusterState().changes()
    for name in names:
        changes.put_node(elements.ComputeNode(
            hostname=name, uuid='%032x' % rng.getrandbits(128), vcpus=64,
            memory_mb=262144, disk_gb=2000, vcpu_ratio=4.0, stamp=stamp))
    uuids = []
    for index in range(servers):
        uuid = '%08x-0000-4000-8000-%012x' % (index, index)
        uuids.append(uuid)
        changes.put_instance(elements.Instance(
            uuid=uuid, name='vm-%06d' % index, host=rng.choice(names),
            vcpus=2, memory_mb=4096, disk_gb=40,
            project_id='%032x' % (index % 50), stamp=stamp))
    return changes.state(), names, uuids


def events(count, names, uuids, rng, start=T0):
    """``count`` instance.update notifications, each for a random server,
    naming a random host (so nearly all of them move it), stamped one
    microsecond apart after ``start``."""
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
            start + datetime.timedelta(microseconds=index + 1)))
    return made


def resynced(fresh):
    """A model holding ``fresh``, swapped in as a resync does."""
    model = cluster.ClusterModel(apply_event=nova_events.apply)
    model.begin_resync()
    model.finish_resync(fresh)
    return model


# OpenStack Watcher 17's side.

def describe(snapshot, names, uuids, todo):
    """The cluster of ``snapshot`` and the events ``todo``, for
    watcher17_model.py (JSON-able)."""
    hosts = []
    for name in names:
        node = snapshot.node(name)
        hosts.append({field: getattr(node, field) for field in (
            'hostname', 'uuid', 'state', 'status', 'disabled_reason',
            'vcpus', 'memory_mb', 'disk_gb', 'vcpu_reserved',
            'memory_mb_reserved', 'disk_gb_reserved', 'vcpu_ratio',
            'memory_ratio', 'disk_ratio')})
    instances = []
    for uuid in uuids:
        instance = snapshot.instance(uuid)
        instances.append({
            'uuid': uuid, 'name': instance.name, 'state': instance.state,
            'host': instance.host, 'vcpus': instance.vcpus,
            'memory_mb': instance.memory_mb, 'disk_gb': instance.disk_gb,
            'project_id': instance.project_id,
            'metadata': instance.metadata_dict, 'locked': instance.locked})
    return {
        'hosts': hosts, 'instances': instances,
        'created': T0.isoformat(),
        'events': [{'publisher_id': event.publisher_id,
                    'event_type': event.event_type,
                    'payload': event.payload,
                    'metadata': {'message_id': str(index),
                                 'timestamp': str(event.stamp)}}
                   for index, event in enumerate(todo)]}


def run_watcher(python, description, copies, budget):
    """watcher17_model.py's figures on ``description``: (dict, None), or
    (None, why not)."""
    with tempfile.TemporaryDirectory(prefix='bench-model-') as directory:
        path = pathlib.Path(directory) / 'cluster.json'
        path.write_text(json.dumps(description))
        try:
            done = subprocess.run(
                [str(python), str(WATCHER_SCRIPT), str(path),
                 '--copies', str(copies), '--budget', str(budget)],
                capture_output=True, text=True, timeout=3600)
        except (OSError, subprocess.SubprocessError) as err:
            return None, 'watcher17_model.py: %s' % err
    if done.returncode:
        tail = done.stderr.strip().splitlines()[-3:]
        return None, 'watcher17_model.py exited %d: %s' % (
            done.returncode, ' / '.join(tail))
    try:
        return json.loads(done.stdout.strip().splitlines()[-1]), None
    except (ValueError, IndexError):
        return None, 'watcher17_model.py printed no JSON: %r' % (
            done.stdout[-300:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--servers', type=int, default=50000)
    parser.add_argument('--events', type=int, default=100000)
    parser.add_argument('--seed', type=int, default=42)
    parser.add_argument(
        '--batch', type=int,
        default=CONF.watcher_decision_engine.notification_batch_size,
        help='events applied as one change, as the listener hands them '
             'over (default: notification_batch_size, %(default)s; 1: one '
             'by one)')
    parser.add_argument(
        '--watcher-venv', default=str(watcher17.VENV),
        help='virtualenv with %s (made on first use; default: %s)'
        % (watcher17.PACKAGE, watcher17.VENV.relative_to(ROOT)))
    parser.add_argument('--no-watcher', action='store_true',
                        help="measure our side only")
    parser.add_argument(
        '--watcher-events', type=int, default=1000,
        help="events applied to Watcher's model (the first ones of ours): "
             "it takes tens of milliseconds per event at 50,000 servers")
    parser.add_argument('--watcher-budget', type=float, default=120.0,
                        help="seconds at most for Watcher's events")
    parser.add_argument('--watcher-copies', type=int, default=3,
                        help="deep copies of Watcher's model to time")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    # As a decision engine paces the garbage collector.
    garbage_collection.pace(CONF.watcher_decision_engine.gc_young_threshold)

    # Ours.
    print('watcher_ha: building %d hosts / %d servers, applying %d events'
          % (args.hosts, args.servers, args.events), flush=True)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    fresh, names, uuids = build(args.hosts, args.servers, rng)
    model = resynced(fresh)
    build_seconds = time.perf_counter() - started
    del fresh

    # The same build again, traced (tracemalloc slows it down severalfold,
    # so it is not the one timed).
    tracemalloc.start()
    traced = resynced(build(args.hosts, args.servers,
                            random.Random(args.seed))[0])
    memory, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert traced.snapshot().instances == model.snapshot().instances
    del traced

    todo = events(args.events, names, uuids, rng)
    # The cluster before the events, for Watcher's side (a snapshot costs
    # nothing and nothing changes it).
    initial = model.snapshot()
    snapshot_times = []
    cpu_started = time.process_time()
    started = time.perf_counter()
    for index in range(0, len(todo), args.batch):
        model.apply_many(todo[index:index + args.batch])
        if index % 10000 < args.batch:
            # Mean of 1,000 snapshots: one is too quick for the clock.
            taken = time.perf_counter()
            for _ in range(1000):
                snapshot = model.snapshot()
            snapshot_times.append((time.perf_counter() - taken) / 1000)
    apply_seconds = time.perf_counter() - started - sum(
        snapshot_times) * 1000
    # CPU time too: the wall clock counts what other processes take.
    apply_cpu_seconds = time.process_time() - cpu_started - sum(
        snapshot_times) * 1000
    # The same events one at a time (as with --batch 1), on the same
    # cluster: what batching gains.
    single = resynced(build(args.hosts, args.servers,
                            random.Random(args.seed))[0])
    started = time.perf_counter()
    for event in todo:
        single.apply(event)
    single_seconds = time.perf_counter() - started
    assert single.snapshot().instances == model.snapshot().instances
    del single
    # A snapshot is consistent: reading it whole after later updates.
    taken = time.perf_counter()
    snapshot = model.snapshot()
    placed = sum(len(snapshot.placement[h]) for h in snapshot.placement)
    walk_seconds = time.perf_counter() - taken
    assert placed == len(snapshot.instances) == args.servers
    last = todo[-1].data
    assert snapshot.instance(last['uuid']).host == last['host']

    # Theirs.
    theirs, why = None, 'not measured (--no-watcher)'
    if not args.no_watcher:
        python, why = watcher17.python(args.watcher_venv)
        if python is not None:
            description = describe(initial, names, uuids,
                                   todo[:args.watcher_events])
            print('Watcher 17: the same cluster and the first %d events, '
                  'with its own model classes (%s)'
                  % (len(description['events']), python), flush=True)
            theirs, why = run_watcher(python, description,
                                      args.watcher_copies,
                                      args.watcher_budget)
            del description

    def their(key, scale, fmt):
        if theirs is None:
            return 'n/a'
        return fmt % (theirs[key] * scale)

    print()
    print('cluster data model, %d hosts / %d servers (seed %d); load '
          'average %.1f before the run' % (args.hosts, args.servers,
                                           args.seed, load))
    rows = [
        ('measure', 'watcher_ha', 'Watcher 17', 'target'),
        ('build, s', '%.2f' % build_seconds, their('build_s', 1, '%.2f'),
         ''),
        ('model memory, MB', '%.0f' % (memory / 2 ** 20),
         their('memory_bytes', 2 ** -20, '%.0f'), '< 300'),
        ('apply rate, events/s (a)', '%.0f' % (args.events / apply_seconds),
         'n/a' if theirs is None else '%.0f' % (
             theirs['events'] / theirs['apply_s']), '>= 20000'),
        ('apply rate, one event at a time, events/s',
         '%.0f' % (args.events / single_seconds), '', ''),
        ('apply rate, events per CPU second',
         '%.0f' % (args.events / apply_cpu_seconds),
         'n/a' if theirs is None else '%.0f' % (
             theirs['events'] / theirs['apply_cpu_s']), ''),
        ('snapshot (ours) / deepcopy (theirs), ms',
         '%.5f' % (statistics.median(snapshot_times) * 1000),
         their('deepcopy_s', 1000, '%.0f'), '< 20'),
        ('to_xml per audit (b), ms', '-', their('to_xml_s', 1000, '%.0f'),
         ''),
        ('walk every server of a snapshot, ms',
         '%.1f' % (walk_seconds * 1000), '-', ''),
    ]
    for row in rows:
        print('%-40s %11s %11s %9s' % row)
    print()
    if theirs is None:
        print('Watcher 17 NOT MEASURED, our side only: %s' % why)
    else:
        print('Watcher: python-watcher %s on Python %s.'
              % (theirs['watcher_version'], theirs['python']))
        their_rate = theirs['events'] / theirs['apply_s']
        print('(a) instance.update moving a server to a random host; ours '
              'over %d events' % args.events)
        print('    in batches of %d as the listener hands them over,'
              % args.batch)
        if theirs['events'] < args.events:
            print("    Watcher's over the first %d of them (all %d would "
                  'take it %.0f s),' % (theirs['events'], args.events,
                                        args.events / their_rate))
        else:
            print("    Watcher's over the same %d," % theirs['events'])
        print("    through its own handler (VersionedNotification.info), "
              'logging off;')
        print('    per CPU second: by the process\'s CPU time, which other '
              'processes on')
        print('    the machine do not inflate as they do the wall clock.')
        print('(b) get_latest_cluster_data_model() builds the XML dump '
              'before each deep copy')
        print('    (for a debug log line, whatever the log level).')
        print('Snapshot: ours the median of %d means of 1,000; deepcopy the '
              'median of %d.' % (len(snapshot_times), theirs['deepcopies']))


if __name__ == '__main__':
    main()
