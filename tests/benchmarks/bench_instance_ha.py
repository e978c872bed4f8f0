#!/usr/bin/env python3
"""Host-failure recovery time for 1, 10 and 100 servers, against
Masakari's defaults applied to the same cloud.

    .venv/bin/python tests/benchmarks/bench_instance_ha.py

For each count of servers, a fresh simulated cloud (watcher-ha-simulator)
holds them all, active, on one host of a reserved_host segment; the API,
a decision engine and an applier run as separate processes on the local
RabbitMQ and MariaDB, with the product's defaults. The host loses power
in the simulator, then its monitor's report is posted at once
(COMPUTE_HOST, STOPPED), and the time runs from that POST until the last
server is ACTIVE on its new host, as /simulator/state shows it; the time
at which the notification is seen ``finished`` is printed too. The
simulated Nova has Nova's service_down_time and rpc_response_timeout
(60 s each): the failed host's service is still up for Nova when the
recovery fences it, as it is on a real cloud.

Where the time went, in seconds after the report: the notification
taken by the engine (its attempt started), the audit computed (the
strategy's answer), the plan stored, the plan taken by an applier, the
failed host fenced (force_host_down ended), the reserved hosts claimed,
the evacuations (when they started and ended, how many at once, how long
each took; ``--each`` prints every one) and the servers ACTIVE. The
daemons' log lines and the database's records give them.

Masakari's defaults, on the same simulated timings: it evacuates in a
pool of 3 greenthreads, so the same recovery runs again with
``[watcher_planners.weight] parallelization`` evacuate:3; and it sleeps
a fixed 180 s (wait_period_after_service_update) after disabling the
failed host's compute service, which is added to that run's times, not
slept. The simulator's evacuation takes its default time in both.

Target: 100 servers ACTIVE again within 30 s of the report, with our
defaults; PASS or FAIL is printed, and the exit status is 0 unless the
benchmark itself broke. The machine is usually shared: the timings are
wall-clock, of daemons competing for its cores.
"""

import argparse
import contextlib
import datetime
import math
import pathlib
import re
import sys
import tempfile
import time

import requests
import sqlalchemy as sa

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import servers  # noqa: E402
from tests.functional import daemons  # noqa: E402
from tests.functional import fixtures  # noqa: E402
from tests.functional.cloud import simulator  # noqa: E402
from tests.functional.fixtures import wait_for  # noqa: E402
from tests.helpers.failed_host import FAILED  # noqa: E402
from tests.helpers.failed_host import ha  # noqa: E402
from tests.helpers.failed_host import segment_of  # noqa: E402
from watcher_ha.conf import applier as applier_conf  # noqa: E402
from watcher_ha.db import models  # noqa: E402
from watcher_ha.decision_engine.planner import weight  # noqa: E402
from watcher_ha.simulator import scenario  # noqa: E402
from watcher_ha.simulator.nova import cloud as sim_cloud  # noqa: E402

TARGET_SERVERS, TARGET_SECONDS = 100, 30.0
# Masakari's [host_failure] defaults, and its wait in seconds after it
# disabled the failed host's compute service.
MASAKARI_POOL = 3
MASAKARI_WAIT = 180
# Polled this often: the timings printed are no finer.
POLL = 0.1
DEFAULTS = {opt.name: opt.default for opt in applier_conf.OPTS}
# The cluster fixture speeds these up for tests; the product's defaults
# are measured here.
PRODUCT_DEFAULTS = {
    'DEFAULT': {'heartbeat_interval': 10, 'rpc_response_timeout': 60},
    'watcher_decision_engine': {'sweep_interval': 10, 'pending_grace': 5},
    'watcher_applier': {'sweep_interval': 10, 'pending_grace': 5},
}


def spec(count, evacuate_seconds):
    """``count`` small active servers, all on the host that fails; two
    empty reserved hosts, either of which holds them all."""
    made = scenario.generate(hosts=4, servers=count, seed=11)
    for server in made['servers']:
        server.update(host=FAILED, flavor='m1.small', state='active',
                      metadata={'HA_Enabled': 'True'})
    if evacuate_seconds is not None:
        made['evacuate_seconds'] = evacuate_seconds
    # Nova's: a host reported at once is still up for it.
    made.update(service_down_time=60, rpc_response_timeout=60)
    return made


def sections(sim_url, parallelization, overrides):
    auth = {'auth_type': 'password', 'auth_url': sim_url + '/identity/v3',
            'username': 'admin', 'password': 'admin',
            'project_name': 'admin', 'user_domain_name': 'Default',
            'project_domain_name': 'Default'}
    found = {group: dict(options)
             for group, options in PRODUCT_DEFAULTS.items()}
    found.update(nova=dict(auth), placement=dict(auth))
    # Measured without keystonemiddleware: the benchmark sends no token.
    found.setdefault('DEFAULT', {}).update(fixtures.NOAUTH)
    if parallelization is not None:
        # The option is one dict: give every type, as its default does.
        found[weight.GROUP] = {'parallelization': ','.join(
            '%s:%d' % (kind, parallelization if kind == 'evacuate'
                       else size)
            for kind, size in weight.DEFAULT_PARALLELIZATION.items())}
    for text in overrides:
        name, value = text.split('=', 1)
        group, option = name.rsplit('.', 1)
        found.setdefault(group, {})[option] = value
    return found


def sim_servers(sim_url):
    return requests.get(sim_url + '/simulator/state',
                        timeout=10).json()['servers']


def recover(cluster, sim_url, count, timeout):
    """Fail the host, report it, and follow the recovery: {'report':
    the wall-clock moment of the POST, 'active': [seconds after it at
    which each server was seen ACTIVE elsewhere], 'finished': seconds
    until the notification was seen finished, 'uuid'}."""
    pending = {uuid for uuid, s in sim_servers(sim_url).items()
               if s['host'] == FAILED}
    assert len(pending) == count, pending
    requests.post('%s/simulator/hosts/%s/fail' % (sim_url, FAILED),
                  timeout=10).raise_for_status()
    # The database's clock is UTC, the daemons' logs local time.
    reported = models.utcnow()
    reported_local = datetime.datetime.now()
    started = time.monotonic()
    uuid = ha(cluster, 'POST', '/notifications', {'notification': {
        'type': 'COMPUTE_HOST', 'hostname': FAILED,
        'generated_time': reported.strftime('%Y-%m-%dT%H:%M:%S'),
        'payload': {'event': 'STOPPED', 'host_status': 'NORMAL',
                    'cluster_status': 'OFFLINE'}}})['notification'][
        'notification_uuid']
    active, finished = {}, None
    while pending or finished is None:
        elapsed = time.monotonic() - started
        if elapsed > timeout:
            raise RuntimeError('%d server(s) not back, notification %s, '
                               'after %d s' % (len(pending), uuid, timeout))
        state = sim_servers(sim_url)
        for server in list(pending):
            found = state[server]
            if (found['host'] != FAILED and found['vm_state'] == 'active'
                    and found['task_state'] is None):
                pending.discard(server)
                active[server] = elapsed
        if finished is None:
            found = ha(cluster, 'GET', '/notifications/' + uuid)[
                'notification']
            if found['status'] == 'finished':
                finished = elapsed
            elif found['status'] == 'failed':
                raise RuntimeError('the recovery failed: %s'
                                   % found['message'])
        time.sleep(POLL)
    return {'report': reported, 'report_local': reported_local,
            'active': sorted(active.values()), 'active_of': active,
            'finished': finished, 'uuid': uuid}


def max_overlap(intervals):
    """The most intervals (start, end) open at one moment."""
    edges = sorted([(start, 1) for start, _ in intervals]
                   + [(end, -1) for _, end in intervals])
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


# A line of a daemon's log: its local time, its text.
LOG_LINE = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) \d+ '
                      r'\w+ \S+ \[[^\]]*\] (.*)$')


def logged(workdir, result, patterns):
    """{step: seconds after the report of the first line of a daemon's
    log matching its pattern} for ``patterns`` ({step: regex})."""
    found = {}
    for path in sorted(workdir.glob('*.log')):
        for line in path.read_text().splitlines():
            match = LOG_LINE.match(line)
            if not match:
                continue
            for step, pattern in patterns.items():
                if step not in found and re.search(pattern, match[2]):
                    moment = datetime.datetime.strptime(
                        match[1], '%Y-%m-%d %H:%M:%S.%f')
                    found[step] = (moment - result['report_local']
                                   ).total_seconds()
    missing = set(patterns) - set(found)
    if missing:
        raise RuntimeError('no log line for %s' % ', '.join(sorted(missing)))
    return found


def phases(workdir, db_url, result):
    """Where the time went: seconds after the report at which each step
    was done, and the evacuations' shape."""
    def after(moment):
        return (moment - result['report']).total_seconds()

    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            audit = conn.execute(sa.select(
                models.Audit.id, models.Audit.uuid).where(
                    models.Audit.name.like(
                        'recovery-%s-%%' % result['uuid']))).one()
            plan = conn.execute(sa.select(models.ActionPlan.uuid).where(
                models.ActionPlan.audit_id == audit.id)).scalar_one()
            moves = conn.execute(sa.select(
                models.VMove.instance_uuid, models.VMove.start_time,
                models.VMove.end_time).where(
                    models.VMove.notification_uuid == result['uuid'])
            ).all()
    finally:
        engine.dispose()
    found = logged(workdir, result, {
        'taken': r'Notification %s: attempt 1 ' % result['uuid'],
        'computed': r'Audit %s: strategy \S+ proposes' % audit.uuid,
        'stored': r'Audit %s produced action plan' % audit.uuid,
        'plan_taken': r'Action plan %s taken by' % plan,
        'fenced': r'\(force_host_down\) of plan %s SUCCEEDED' % plan,
        'claimed': r'\(claim_reserved_hosts\) of plan %s SUCCEEDED' % plan,
        'settled': r'\(settle_recovery\) of plan %s SUCCEEDED' % plan})
    found['moves'] = sorted(
        (after(m.start_time), after(m.end_time),
         result['active_of'].get(m.instance_uuid)) for m in moves)
    spans = [(start, end) for start, end, _ in found['moves']]
    found.update(
        first_move=min(s for s, _ in spans),
        last_move=max(e for _, e in spans),
        concurrent=max_overlap(spans),
        move_mean=sum(e - s for s, e in spans) / len(spans),
        move_max=max(e - s for s, e in spans))
    return found


def describe(found, result, each=False):
    """The breakdown, one step a line."""
    count = len(found['moves'])
    waves = math.ceil(count / found['concurrent'])
    active = result['active']
    lines = [
        'report                      +0.0',
        'notification taken          +%.1f' % found['taken'],
        'audit computed              +%.1f' % found['computed'],
        'plan stored                 +%.1f' % found['stored'],
        'plan taken by an applier    +%.1f' % found['plan_taken'],
        'failed host fenced          +%.1f' % found['fenced'],
        'reserved hosts claimed      +%.1f' % found['claimed'],
        'evacuations                 +%.1f .. +%.1f: at most %d at once, '
        '%.1f s each (max %.1f); %d waves of the mean would take %.1f s'
        % (found['first_move'], found['last_move'], found['concurrent'],
           found['move_mean'], found['move_max'], waves,
           waves * found['move_mean']),
        'servers ACTIVE              +%.1f (first), +%.1f (half), +%.1f '
        '(all %d)' % (active[0], active[len(active) // 2], active[-1],
                      len(active)),
        'settled                     +%.1f' % found['settled']]
    if each:
        lines += ['  evacuation %3d: +%.1f .. +%.1f, ACTIVE +%s' % (
            index, start, end, '-' if seen is None else '%.1f' % seen)
            for index, (start, end, seen) in enumerate(found['moves'], 1)]
    return '\n    '.join(lines)


def bench(workdir, count, parallelization, args):
    with servers.rabbit_vhost() as rabbit, \
            servers.database('mysql') as (db_url, _), \
            simulator(workdir / 'sim',
                      spec(count, args.evacuate_seconds)) as sim_url, \
            daemons.cluster(workdir, db_url, rabbit, **sections(
                sim_url, parallelization, args.set)) as cluster:
        cluster.start_daemons(engines=['engine-1'],
                              appliers=['applier-1'])
        segment_of(cluster)
        # A monitor reports to daemons that have been up for a while:
        # the engine's compute model is built.
        log = workdir / 'engine-1.log'
        wait_for(lambda: log.exists()
                 and 'compute model resynced' in log.read_text(), 60,
                 'the engine\'s compute model', every=0.2)
        result = recover(cluster, sim_url, count, args.timeout)
        result['phases'] = phases(workdir, db_url, result)
        return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--servers', default='1,10,100')
    parser.add_argument('--evacuate-seconds', type=float, default=None,
                        help='an evacuation\'s time in the simulator '
                             '(default: its own, %.0f s)'
                             % sim_cloud.EVACUATE_SECONDS)
    parser.add_argument('--only', choices=('ours', 'masakari'))
    parser.add_argument('--each', action='store_true',
                        help='print every evacuation\'s times')
    parser.add_argument('--set', action='append', default=[],
                        metavar='GROUP.OPTION=VALUE',
                        help='a config option of every daemon, for both '
                             'runs (e.g. watcher_applier.workers=10)')
    parser.add_argument('--timeout', type=float, default=900)
    parser.add_argument('--workdir', type=pathlib.Path,
                        help='keep each run\'s configs and logs here')
    args = parser.parse_args()
    counts = [int(c) for c in args.servers.split(',')]
    runs = [('ours', None), ('masakari', MASAKARI_POOL)]
    runs = [run for run in runs if args.only in (None, run[0])]
    evacuate = (args.evacuate_seconds if args.evacuate_seconds is not None
                else sim_cloud.EVACUATE_SECONDS)
    print('each evacuation takes %.1f s in the simulator; %s'
          % (evacuate, ', '.join(args.set) or 'product defaults'),
          flush=True)
    results = {}
    with contextlib.ExitStack() as stack:
        root = args.workdir or pathlib.Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix='bench-instance-ha-')))
        for count in counts:
            for name, parallelization in runs:
                workdir = root / ('%s-%d' % (name, count))
                workdir.mkdir(parents=True, exist_ok=True)
                result = bench(workdir, count, parallelization, args)
                results[name, count] = result
                print('%-8s %3d server(s): last ACTIVE %.1f s, finished '
                      '%.1f s\n    %s' % (
                          name, count, result['active'][-1],
                          result['finished'],
                          describe(result['phases'], result, args.each)),
                      flush=True)
    print()
    print('seconds from the report (POST /notifications) to the last '
          'server ACTIVE on its new host, and to the notification seen '
          'finished')
    theirs = 'Masakari defaults (pool %d, +%d s)' % (MASAKARI_POOL,
                                                     MASAKARI_WAIT)
    print('%-8s  %-26s  %s' % ('servers', 'ours', theirs))
    print('%-8s  %-26s  %s' % ('', 'last ACTIVE   finished',
                               'last ACTIVE   finished'))
    for count in counts:
        cells = []
        for name, extra in (('ours', 0), ('masakari', MASAKARI_WAIT)):
            result = results.get((name, count))
            cells.append('%11.1f %10.1f' % (
                result['active'][-1] + extra, result['finished'] + extra)
                if result else '%11s %10s' % ('-', '-'))
        print('%-8d  %-26s  %s' % (count, cells[0], cells[1]))
    print('ours: %s' % (', '.join(args.set) or (
        'the defaults: [%s] parallelization evacuate:%d, '
        '[watcher_applier] workers %d, poll_interval %.0f s' % (
            weight.GROUP, weight.DEFAULT_PARALLELIZATION['evacuate'],
            DEFAULTS['workers'], DEFAULTS['poll_interval']))))
    if 'masakari' in dict(runs):
        print('Masakari: our recovery run with [%s] parallelization '
              'evacuate:%d, plus its wait_period_after_service_update '
              '(%d s) added, not slept.' % (weight.GROUP, MASAKARI_POOL,
                                            MASAKARI_WAIT))
    result = results.get(('ours', TARGET_SERVERS))
    if result:
        last = result['active'][-1]
        print('target: %d servers ACTIVE within %.0f s of the report: %s '
              '(%.1f s)' % (TARGET_SERVERS, TARGET_SECONDS,
                            'PASS' if last <= TARGET_SECONDS else 'FAIL',
                            last))


if __name__ == '__main__':
    main()
