#!/usr/bin/env python3
"""Plan execution: 200 live migrations, 10 at a time, against one by one.

    .venv/bin/python tests/benchmarks/bench_plan_parallelism.py \
        [--migrations 200] [--parallelization 10] [--seconds 1.0] \
        [--estimate-serial]

Starts the simulator (40 hosts: 20 sources holding the servers, 20 empty
destinations), an API and one applier as separate processes on the local
RabbitMQ and MariaDB. The plan is the weight planner's, with
``[watcher_planners.weight] parallelization`` migrate:N; the migrations
go round the sources, so that a lane's migrations leave two sources in
turn and no two lanes share one: Nova's nova-compute runs one live
migration out of a host at a time (max_concurrent_live_migrations = 1,
which the simulator enforces), and a plan running two off one host at
once would only queue them in Nova. Each migration takes ``--seconds``
in the simulator (the server's memory over the bandwidth).

Prints, for the plan run N at a time and for the same plan run one by
one (parallelization 1; with --estimate-serial not run but estimated as
the sum of the migrations' own times, which leaves out the applier's
own time per action): the wall time from the start to the plan
SUCCEEDED, the sum of the migrations' own times (the simulator's records:
from the migration's start to its end), the most migrations the
simulator had under way at once, and the speed-up. The issue's target:
8x faster than one by one.
"""

import argparse
import datetime
import pathlib
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
from tests.functional import migration_plans  # noqa: E402
from tests.functional.cloud import simulator  # noqa: E402
from tests.functional.fixtures import wait_for  # noqa: E402
from watcher_ha.simulator import scenario  # noqa: E402

SOURCES = 20
POLL = 0.05
# The applier's look at a migrating server ([watcher_applier]
# poll_interval): an action ends up to this long after its migration.
APPLIER_POLL = 0.2
RAM_MB = 2048


def cloud(migrations, seconds):
    """``migrations`` m1.small servers spread over the sources, and as
    many empty destinations; a live migration takes ``seconds``."""
    spec = scenario.generate(hosts=2 * SOURCES, servers=0, seed=18)
    spec['servers'] = [
        {'name': 'vm-%04d' % index, 'flavor': 'm1.small',
         'host': 'compute-%04d' % (index % SOURCES), 'state': 'active'}
        for index in range(migrations)]
    spec['bandwidth_mb_per_s'] = RAM_MB / seconds
    spec['max_concurrent_live_migrations'] = 1
    return spec


def state(sim_url):
    return requests.get(sim_url + '/simulator/state', timeout=30).json()


def the_plan(engine, sim_url, parallelization):
    """The plan moving every server to the host paired with its own
    (there, then back), in the servers' order."""
    servers = state(sim_url)['servers']
    by_name = sorted((s['name'], uuid, s['host'])
                     for uuid, s in servers.items())
    migrations = []
    for name, uuid, host in by_name:
        index = int(host.rsplit('-', 1)[1])
        paired = 'compute-%04d' % ((index + SOURCES) % (2 * SOURCES))
        migrations.append(migration_plans.live_migration(uuid, host,
                                                         paired))
    plan, _ = migration_plans.insert_plan(
        engine, migration_plans.planned(migrations, parallelization))
    return plan


def _moment(text):
    return datetime.datetime.fromisoformat(text)


def most_at_once(records):
    """The most migrations running at the same moment."""
    edges = sorted([(_moment(r['started_at']), 1) for r in records]
                   + [(_moment(r['updated_at']), -1) for r in records])
    running = widest = 0
    for _, step in edges:
        running += step
        widest = max(widest, running)
    return widest


def run(cluster, engine, sim_url, parallelization):
    before = {m['id'] for m in state(sim_url)['live_migrations']}
    plan = the_plan(engine, sim_url, parallelization)
    started = time.monotonic()
    resp = requests.post('%s/v1/action_plans/%s/start' % (
        cluster.url, plan['uuid']), timeout=10)
    resp.raise_for_status()

    def ended():
        found, _ = migration_plans.plan_states(engine, plan)
        return found if found in ('SUCCEEDED', 'FAILED', 'CANCELLED') \
            else None
    outcome = wait_for(ended, 3600, 'the plan to end', every=POLL)
    wall = time.monotonic() - started
    if outcome != 'SUCCEEDED':
        raise SystemExit('the plan ended %s' % outcome)
    records = [m for m in state(sim_url)['live_migrations']
               if m['id'] not in before]
    assert all(r['status'] == 'completed' for r in records), records
    own = sum((_moment(r['updated_at']) - _moment(r['started_at']))
              .total_seconds() for r in records)
    queued = sum((_moment(r['started_at']) - _moment(r['created_at']))
                 .total_seconds() for r in records)
    return {'wall': wall, 'own': own, 'queued': queued,
            'count': len(records), 'widest': most_at_once(records)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--migrations', type=int, default=200)
    parser.add_argument('--parallelization', type=int, default=10)
    parser.add_argument('--seconds', type=float, default=1.0,
                        help='how long one live migration takes')
    parser.add_argument('--estimate-serial', action='store_true',
                        help='estimate one by one from the sum of the '
                             'migrations\' own times instead of running it')
    args = parser.parse_args()
    url, drop = servers.create_database('mysql')
    engine = sa.create_engine(url)
    results = {}
    try:
        with tempfile.TemporaryDirectory() as tmp, \
                servers.rabbit_vhost() as rabbit:
            tmp = pathlib.Path(tmp)
            with simulator(tmp / 'sim', cloud(args.migrations,
                                              args.seconds)) as sim_url:
                auth = {'auth_type': 'password',
                        'auth_url': sim_url + '/identity/v3',
                        'username': 'admin', 'password': 'admin',
                        'project_name': 'admin',
                        'user_domain_name': 'Default',
                        'project_domain_name': 'Default'}
                with daemons.cluster(
                        tmp, url, rabbit, DEFAULT=fixtures.NOAUTH,
                        nova=dict(auth),
                        placement=dict(auth), watcher_applier={
                            'poll_interval': APPLIER_POLL,
                            'migration_timeout': 600}) as cluster:
                    cluster.start_daemons(appliers=['applier-a'])
                    results['parallel'] = run(cluster, engine, sim_url,
                                              args.parallelization)
                    print('%d at a time: %.1f s' % (
                        args.parallelization,
                        results['parallel']['wall']), flush=True)
                    if not args.estimate_serial:
                        results['serial'] = run(cluster, engine, sim_url,
                                                1)
    finally:
        engine.dispose()
        drop()
    parallel = results['parallel']
    serial = results.get('serial')
    print()
    print('%d live migrations of %.1f s each (simulator: one at a time '
          'per source host, as Nova\'s default)'
          % (parallel['count'], args.seconds))
    print('%-22s %10s %12s %10s %8s' % ('run', 'wall', 'sum of own',
                                         'queued', 'at once'))
    print('%-22s %9.1fs %11.1fs %9.1fs %8d' % (
        '%d at a time' % args.parallelization, parallel['wall'],
        parallel['own'], parallel['queued'], parallel['widest']))
    if serial:
        print('%-22s %9.1fs %11.1fs %9.1fs %8d' % (
            'one by one', serial['wall'], serial['own'], serial['queued'],
            serial['widest']))
        one_by_one, how = serial['wall'], 'measured'
    else:
        one_by_one, how = parallel['own'], 'estimated: the sum of own times'
    print()
    print('speed-up against one by one (%s): %.1fx (target: 8x)'
          % (how, one_by_one / parallel['wall']))
    print('wall time against the sum of own times: %.1fx'
          % (parallel['own'] / parallel['wall']))


if __name__ == '__main__':
    main()
