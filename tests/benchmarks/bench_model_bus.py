#!/usr/bin/env python3
"""The data model's notification apply rate end to end over RabbitMQ.

    .venv/bin/python tests/benchmarks/bench_model_bus.py [--hosts 1000]
        [--servers 50000] [--events 30000] [--rounds 3]
        [--listener-processes 2]

On the local RabbitMQ (127.0.0.1:5672, guest/guest), in a virtual host of
its own deleted at the end, a decision engine's compute model is wired as
the engine wires it (DecisionEngineManager._start_models: the compute
collector's model and notification handlers, the Dispatcher, the
listener in the engine's own pool: by default two listener processes,
``[watcher_decision_engine] notification_listener_processes = 2``; 0 reads
in the engine's process) and holds a model of --hosts nodes
and --servers servers built as bench_model.py builds it. A separate
process (so that publishing takes no CPU from the engine's interpreter)
publishes --events Nova ``instance.update`` notifications (real
InstanceUpdatePayloads, as bench_model.py makes them) with oslo.messaging's
Notifier to exchange ``nova``, topic ``versioned_notifications``, as Nova
does:

- live: the engine consumes while the notifications are published;
- then --rounds times, back to back:
  - backlog: the notifications are queued first, in the engine's queue
    while its listener is stopped, then the listener starts: how fast an
    engine catches up after a pause;
  - and, for scale, the same backlog drained by a bare oslo.messaging
    notification listener (same transport and executor, an endpoint that
    only counts): the most any engine on oslo.messaging gets on this
    machine at that moment.

The rates of a shared machine swing from minute to minute; the rounds
print the median of each and, round by round, the engine's rate beside
the bare listener's of the same minute.

Each rate is events applied to the model per second, from the first
applied event to the last (the model's notification counter and the time
of its last notification tell). Target: 3,000 events/s per engine. Events
per CPU second divide the same events by the CPU time the engine's
process and its listener processes used meanwhile (every thread:
listener, dispatcher, garbage collector): what one engine does with one
core, which the wall-clock rate on a shared machine understates. Under
each run, the share of that CPU time each kind of thread used (read per
thread and per listener process from /proc): how much of it was reading
the broker (oslo.messaging's poll thread, which reads, decodes and
acknowledges one message at a time, in the engine or in its listener
processes), and how much the engine's own dispatcher.
"""

import argparse
import dataclasses
import datetime
import itertools
import multiprocessing
import os
import pathlib
import queue
import random
import statistics
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import oslo_messaging  # noqa: E402

from tests import servers  # noqa: E402
from tests.benchmarks import bench_model  # noqa: E402
from watcher_ha.conf import CONF  # noqa: E402
from watcher_ha.decision_engine import manager  # noqa: E402
from watcher_ha.decision_engine.model import elements  # noqa: E402
from watcher_ha.simulator import notifications  # noqa: E402

ENGINE = 'bench-model-bus'
TIMEOUT = 600


def publish(url, names, uuids, count, seed, ready, go, results):
    """In its own process: ``count`` instance.update notifications, sent
    as Nova sends them once ``go`` is set; puts (first send, last send,
    {uuid: host of its last event}) in ``results``."""
    todo = bench_model.events(count, names, uuids, random.Random(seed))
    transport = notifications.nova_transport(url)
    notifier = oslo_messaging.Notifier(
        transport, driver='messagingv2', topics=[notifications.TOPIC])
    by_publisher = {}
    for event in todo:
        if event.publisher_id not in by_publisher:
            by_publisher[event.publisher_id] = notifier.prepare(
                publisher_id=event.publisher_id)
    ready.set()
    go.wait()
    started = time.time()
    for event in todo:
        by_publisher[event.publisher_id].info(
            {}, event.event_type, event.payload)
    ended = time.time()
    transport.cleanup()
    results.put((started, ended,
                 {event.data['uuid']: event.data['host'] for event in todo}))


class Publisher:
    """The publishing process, ready to go (its events made, its
    connection set up)."""

    def __init__(self, url, names, uuids, count, seed):
        context = multiprocessing.get_context('spawn')
        self._ready = context.Event()
        self._go = context.Event()
        self._results = context.Queue()
        self._process = context.Process(
            target=publish, daemon=True,
            args=(url, names, uuids, count, seed, self._ready, self._go,
                  self._results))
        self._process.start()
        if not self._ready.wait(TIMEOUT):
            raise RuntimeError('the publisher did not get ready')

    def go(self):
        self._go.set()

    def results(self):
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                found = self._results.get(timeout=1)
                break
            except queue.Empty:
                if (not self._process.is_alive()
                        or time.monotonic() > deadline):
                    raise RuntimeError('the publisher failed (exit code %s)'
                                       % self._process.exitcode) from None
        self._process.join(TIMEOUT)
        return found


class Counter:
    """A batch notification endpoint that only counts, with the two
    attributes of a ClusterModel that wait_applied reads."""

    def __init__(self):
        self.notifications_applied = 0
        self.last_notification = None
        self._lock = threading.Lock()

    def info(self, messages):
        with self._lock:
            self.notifications_applied += len(messages)
            self.last_notification = time.time()


def bare_listener(counter, pool):
    """A listener made as NovaListener makes its own."""
    engine = CONF.watcher_decision_engine
    return oslo_messaging.get_batch_notification_listener(
        oslo_messaging.get_notification_transport(CONF),
        [oslo_messaging.Target(exchange=engine.nova_exchange,
                               topic=engine.nova_topic)],
        [counter], executor='threading', pool=pool, allow_requeue=False,
        batch_size=engine.notification_batch_size,
        batch_timeout=engine.notification_batch_timeout)


def thread_role(thread):
    """What a thread of this process does, for the CPU breakdown."""
    target = getattr(getattr(thread, '_target', None), '__qualname__', '')
    if target.endswith('._runner'):
        return 'oslo.messaging poll (read, decode, ack)'
    if thread.name == 'notification-dispatch':
        return 'dispatcher (handlers, model apply)'
    if type(thread).__name__ == 'ThreadWorker':
        return 'oslo.messaging executor (endpoint)'
    return 'other'


LISTENER_PROCESSES = 'listener processes (read, decode, ack, send)'


def cpu_seconds(stat_path):
    """CPU seconds of the task or process whose /proc stat file this is;
    0 once it is gone."""
    try:
        stat = pathlib.Path(stat_path).read_text()
    except OSError:
        return 0
    # utime and stime: the 12th and 13th fields after "(comm) ".
    fields = stat[stat.rindex(')') + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def thread_cpu(children=()):
    """{thread id: CPU seconds} for every thread of this process, read
    from /proc (Python only reads the calling thread's), and {'pid N':
    CPU seconds} for each of the ``children`` pids."""
    found = {int(task.name): cpu_seconds(task / 'stat')
             for task in pathlib.Path('/proc/self/task').iterdir()}
    found.update({'pid %d' % pid: cpu_seconds('/proc/%d/stat' % pid)
                  for pid in children})
    return found


def cpu_by_role(before, after):
    """{role: CPU seconds used between two thread_cpu()}."""
    roles = {thread.native_id: thread_role(thread)
             for thread in threading.enumerate()}
    used = {}
    for task, seconds in after.items():
        role = (LISTENER_PROCESSES if isinstance(task, str)
                else roles.get(task, 'other'))
        used[role] = used.get(role, 0) + seconds - before.get(task, 0)
    return used


def wait_applied(model, target, children=()):
    """Wait until ``model`` applied ``target`` notifications in all:
    (time of the first applied after this call, time of the last, rate
    between them, CPU seconds per event meanwhile of this process and its
    listener ``children`` (pids), the share of that CPU time each kind of
    thread used)."""
    before = model.notifications_applied
    deadline = time.monotonic() + TIMEOUT
    while model.notifications_applied == before:
        if time.monotonic() > deadline:
            raise RuntimeError('no notification applied in %d s' % TIMEOUT)
        time.sleep(0.001)
    first = time.time()
    threads_first = thread_cpu(children)
    first_count = model.notifications_applied
    while model.notifications_applied < target:
        if time.monotonic() > deadline:
            raise RuntimeError('%d of %d notifications applied in %d s' % (
                model.notifications_applied - before, target - before,
                TIMEOUT))
        time.sleep(0.05)
    used = cpu_by_role(threads_first, thread_cpu(children))
    total = sum(used.values()) or 1
    shares = {role: seconds / total for role, seconds in used.items()}
    last = model.last_notification
    return (first, last, (target - first_count) / (last - first),
            total / (target - first_count), shares)


@dataclasses.dataclass
class Run:
    """One drain: events applied per second, published per second, CPU
    seconds per event, CPU share by kind of thread, and (live only) how
    long after the last send the last event was applied."""
    rate: float
    published: float
    cpu: float
    shares: dict
    lag: float = None


def median_run(runs):
    """The run of median rate; its CPU shares averaged over all runs."""
    middle = sorted(runs, key=lambda r: r.rate)[(len(runs) - 1) // 2]
    roles = {role for r in runs for role in r.shares}
    return dataclasses.replace(middle, shares={
        role: statistics.mean(r.shares.get(role, 0) for r in runs)
        for role in roles})


def print_run(name, found, target):
    print('%-60s %10.0f %10s' % ('%s: applied, events/s' % name,
                                 found.rate, target))
    print('%-60s %10.0f %10s' % ('%s: events per CPU second' % name,
                                 1 / found.cpu, ''))
    print('%-60s %10.0f %10s' % ('%s: published, events/s' % name,
                                 found.published, ''))
    if found.lag is not None:
        # Live, the publisher sets the pace: the engine keeps up if it
        # applies the last event soon after it was sent.
        print('%-60s %10.2f %10s' % (
            '%s: last applied after last sent, s' % name, found.lag,
            '< 1'))
    for role, share in sorted(found.shares.items(), key=lambda i: -i[1]):
        print('  %-58s %9.0f%% %10s' % ('CPU: ' + role, share * 100, ''))


def listener_pids(engine):
    """The engine's listener processes, if it has any."""
    return getattr(engine._listener, 'pids', list)()


def run(args, url):
    CONF([], project='watcher-ha', default_config_files=[])
    CONF.set_override('transport_url', url)
    CONF.set_override('notification_listener_processes',
                      args.listener_processes,
                      group='watcher_decision_engine')
    # The compute collector only runs with Nova credentials; it never
    # reaches Nova here, since every host the notifications name is in the
    # model.
    CONF.set_override('auth_type', 'none', group='nova')

    print('building %d hosts / %d servers' % (args.hosts, args.servers),
          flush=True)
    # Stamped long ago: the notifications carry the time they are sent.
    fresh, names, uuids = bench_model.build(
        args.hosts, args.servers, random.Random(args.seed),
        stamp=elements.EPOCH)
    engine = manager.DecisionEngineManager(host=ENGINE)
    engine._start_models()
    model = engine.model('compute')
    model.begin_resync()
    model.finish_resync(fresh)
    del fresh
    live = None
    engine_rounds, bare_rounds = [], []
    expected = {}
    seeds = itertools.count(args.seed + 1)
    counter = Counter()
    bare_pool = 'bench-model-bus-bare'
    try:
        # Live: the engine consumes while the publisher publishes.
        print('live: publishing %d notifications while the engine consumes'
              % args.events, flush=True)
        publisher = Publisher(url, names, uuids, args.events, next(seeds))
        target = model.notifications_applied + args.events
        publisher.go()
        first, last, rate, cpu, shares = wait_applied(
            model, target, listener_pids(engine))
        sent_from, sent_to, last_hosts = publisher.results()
        expected.update(last_hosts)
        live = Run(rate, args.events / (sent_to - sent_from), cpu, shares,
                   lag=last - sent_to)

        # The bare listener's first start declares its queue, which then
        # keeps what arrives while it is stopped.
        bare = bare_listener(counter, bare_pool)
        bare.start(override_pool_size=1)
        bare.stop()
        bare.wait()
        engine._listener.stop()
        for number in range(1, args.rounds + 1):
            # One backlog, queued for both while both are stopped (every
            # pool gets every notification): the engine drains it, then
            # the bare listener drains the same.
            print('round %d of %d: %d notifications queued, drained by the '
                  'engine, then by a bare listener' % (
                      number, args.rounds, args.events), flush=True)
            publisher = Publisher(url, names, uuids, args.events,
                                  next(seeds))
            publisher.go()
            sent_from, sent_to, last_hosts = publisher.results()
            expected.update(last_hosts)
            published = args.events / (sent_to - sent_from)

            target = model.notifications_applied + args.events
            engine._listener.start()
            try:
                first, last, rate, cpu, shares = wait_applied(
                    model, target, listener_pids(engine))
            finally:
                engine._listener.stop()
            engine_rounds.append(Run(rate, published, cpu, shares))

            target = counter.notifications_applied + args.events
            bare = bare_listener(counter, bare_pool)
            bare.start(override_pool_size=1)
            try:
                first, last, rate, cpu, shares = wait_applied(counter,
                                                              target)
            finally:
                bare.stop()
                bare.wait()
            bare_rounds.append(Run(rate, published, cpu, shares))
    finally:
        if engine._listener is not None:
            engine._listener.stop()
        if engine.dispatcher is not None:
            engine.dispatcher.stop()

    snapshot = model.snapshot()
    misplaced = sum(1 for uuid, host in expected.items()
                    if snapshot.instance(uuid).host != host)
    assert len(snapshot.instances) == args.servers
    print()
    print('data model over RabbitMQ, %d hosts / %d servers, %d '
          'instance.update per run, %d listener processes' % (
              args.hosts, args.servers, args.events,
              args.listener_processes))
    print('%-60s %10s %10s' % ('measure', 'value', 'target'))
    print_run('live', live, '')
    print_run('backlog (median of %d)' % args.rounds,
              median_run(engine_rounds), '>= 3000')
    print_run('bare listener, backlog (median of %d)' % args.rounds,
              median_run(bare_rounds), '')
    print('%-60s %10s' % ('backlog rounds, engine / bare listener, events/s',
                          ''))
    for number, (mine, theirs) in enumerate(zip(engine_rounds, bare_rounds),
                                            1):
        print('  %-58s %10s' % ('round %d: %.0f / %.0f (%.0f %%)' % (
            number, mine.rate, theirs.rate, 100 * mine.rate / theirs.rate),
            ''))
    print('%-60s %10d %10s' % ('servers not where their last event puts them',
                               misplaced, '0'))
    print('engine dispatched %d, handler failures %d; load average %.1f '
          'before the run; %s' % (
              engine.dispatcher.dispatched, engine.dispatcher.failed,
              args.load, datetime.datetime.now().strftime('%Y-%m-%d %H:%M')))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--hosts', type=int, default=1000)
    parser.add_argument('--servers', type=int, default=50000)
    parser.add_argument('--events', type=int, default=30000)
    parser.add_argument('--seed', type=int, default=42)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument(
        '--listener-processes', type=int, default=2,
        help='the engine\'s [watcher_decision_engine] '
             'notification_listener_processes (default %(default)s; 0: it '
             'reads the notifications in its own process)')
    args = parser.parse_args()
    args.load = os.getloadavg()[0]
    if not servers.port_open(servers.RABBIT):
        sys.exit('RabbitMQ is not reachable on %s:%d. Start it with: %s'
                 % (servers.RABBIT + (servers.HOW_TO_START['rabbitmq'],)))
    with servers.rabbit_vhost() as url:
        run(args, url)


if __name__ == '__main__':
    main()
