#!/usr/bin/env python3
"""Failover time of decision engines and appliers.

    .venv/bin/python tests/benchmarks/bench_failover.py [--kills 10]

Starts an API, three decision engines and three appliers as separate
processes on the local RabbitMQ, MariaDB and Redis (the tooz backend), with
the default [coordination] member_timeout (10 s). Then, --kills times each:

* engines: SIGKILL the engine owning the most continuous audits (of 12,
  interval 2 s); the failover time runs from the kill until every audit it
  owned is owned by a live engine and has produced a plan there. The killed
  engine is started again before the next kill.
* appliers: start a plan of sleep actions, SIGKILL the applier running it;
  the failover time runs from the kill until the plan is CANCELLED by a
  survivor. The killed applier is started again.

Prints the median and the maximum of each. The HA issue's bound is 15 s.
"""

import argparse
import collections
import pathlib
import statistics
import sys
import tempfile
import time

import requests
import sqlalchemy as sa

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import factories  # noqa: E402
from tests import servers  # noqa: E402
from tests.functional import daemons  # noqa: E402
from tests.functional import fixtures  # noqa: E402
from tests.functional.fixtures import wait_for  # noqa: E402
from watcher_ha.db import models  # noqa: E402

ENGINES = ['engine-a', 'engine-b', 'engine-c']
APPLIERS = ['applier-a', 'applier-b', 'applier-c']


# Polled this often: the timings printed are no finer.
POLL = 0.05


def owners(engine):
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(
            models.Audit.uuid, models.Audit.hostname).where(
                models.Audit.audit_type == 'CONTINUOUS',
                models.Audit.state == 'ONGOING')).all())


def last_plan(engine, uuid):
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.max(
            models.ActionPlan.created_at)).join(
                models.Audit, models.ActionPlan.audit_id == models.Audit.id)
            .where(models.Audit.uuid == uuid)).scalar()


def engine_failover(cluster, engine):
    held = owners(engine)
    victim = collections.Counter(held.values()).most_common(1)[0][0]
    lost = [uuid for uuid, host in held.items() if host == victim]
    killed = models.utcnow()
    started = time.monotonic()
    cluster.kill(victim)
    cluster.processes[victim].wait()

    def recovered():
        now = owners(engine)
        return all(now.get(uuid) not in (victim, None)
                   and (last_plan(engine, uuid) or killed) > killed
                   for uuid in lost)
    wait_for(recovered, 60, 'recovery', every=POLL)
    elapsed = time.monotonic() - started
    cluster.start_engine(victim)
    # Let the ring settle with the engine back before the next kill.
    wait_for(lambda: victim in owners(engine).values(), 30,
             'an audit on %s' % victim, every=POLL)
    return elapsed


def applier_failover(cluster, engine):
    plan, _ = factories.action_plan(engine, factories.audit(engine),
                                    actions=1)
    with engine.begin() as conn:
        conn.execute(sa.update(models.Action).where(
            models.Action.action_plan_id == plan['id']).values(
                action_type='sleep', input_parameters={'duration': 120}))
    requests.post('%s/v1/action_plans/%s/start' % (cluster.url,
                                                    plan['uuid']),
                  timeout=10).raise_for_status()

    def runner():
        with engine.connect() as conn:
            row = conn.execute(sa.select(
                models.ActionPlan.state, models.ActionPlan.hostname).where(
                    models.ActionPlan.id == plan['id'])).one()
        return row.hostname if row.state == 'ONGOING' else None
    victim = wait_for(runner, 60, 'the plan running', every=POLL)
    started = time.monotonic()
    cluster.kill(victim)
    cluster.processes[victim].wait()

    def cancelled():
        with engine.connect() as conn:
            return conn.execute(sa.select(models.ActionPlan.state).where(
                models.ActionPlan.id == plan['id'])).scalar() == 'CANCELLED'
    wait_for(cancelled, 60, 'the cancel', every=POLL)
    elapsed = time.monotonic() - started
    cluster.start_applier(victim)
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kills', type=int, default=10)
    parser.add_argument('--audits', type=int, default=12)
    args = parser.parse_args()
    url, drop = servers.create_database('mysql')
    engine = sa.create_engine(url)
    try:
        with tempfile.TemporaryDirectory() as tmp, \
                servers.rabbit_vhost() as rabbit, daemons.cluster(
                pathlib.Path(tmp), url, rabbit, DEFAULT=fixtures.NOAUTH,
                coordination={
                    'backend_url': servers.redis_coordination_url()}) \
                as cluster:
            cluster.start_daemons(engines=ENGINES, appliers=APPLIERS)
            for _ in range(args.audits):
                requests.post(cluster.url + '/v1/audits', json={
                    'goal': 'dummy', 'strategy': 'dummy',
                    'audit_type': 'CONTINUOUS', 'interval': '2'},
                    timeout=10).raise_for_status()
            wait_for(lambda: len(set(owners(engine).values())) == 3, 60,
                     'audits on all three engines', every=POLL)
            results = {'decision engine': [], 'applier': []}
            for index in range(args.kills):
                results['decision engine'].append(
                    engine_failover(cluster, engine))
                results['applier'].append(applier_failover(cluster, engine))
                print('kill %2d: engine %.1f s, applier %.1f s' % (
                    index + 1, results['decision engine'][-1],
                    results['applier'][-1]), flush=True)
    finally:
        engine.dispose()
        drop()
    print()
    print('failover after SIGKILL (member_timeout = 10 s), %d kills each'
          % args.kills)
    print('%-16s %8s %8s' % ('daemon', 'median', 'max'))
    for kind, times in results.items():
        print('%-16s %7.1fs %7.1fs' % (kind, statistics.median(times),
                                       max(times)))


if __name__ == '__main__':
    main()
