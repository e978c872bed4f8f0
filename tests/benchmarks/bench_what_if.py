#!/usr/bin/env python3
"""The what-if of a plan of thousands of moves on 1,000 hosts and 20,000
servers (issue 31: answers in under 1 s).

    .venv/bin/python tests/benchmarks/bench_what_if.py \\
        [--size 1000x20000] [--seed 1] [--repeat 5] \\
        [--strategies vm_workload_consolidation,workload_balance] \\
        [--segments 20]

The cluster is tests/cluster_generator.py's (five host sizes, idle, hot,
empty and disabled hosts) with its static metrics; ``--segments``
failover segments share its hosts, each with two reserved hosts (its
first two empty ones, else its first two), every other one
``reserved_host``, the others ``auto``. Each strategy plans on it as an
audit would (the reserved hosts protected), and its planner (the one the
strategy names) orders the plan.

For each strategy it prints the plan (actions, steps), then the median,
minimum and maximum of ``--repeat`` runs of:

- ``projection``: the what-if's computation alone
  (decision_engine/what_if/report.py ``answer``: the projection, the
  hosts, indicators, segments, budgets);
- ``engine``: what a decision engine does for ``GET .../what_if``
  (``for_plan``), the plan, its actions, its audit and the segments read
  from a database (SQLite, a temporary file) and the answer encoded in
  JSON as the RPC reply is;

with the answer's size and the garbage collector paced as an engine
paces it ([watcher_decision_engine] gc_young_threshold). ``CPU``: the
median CPU time of the runs, the steadier figure on a shared machine.
"""

import argparse
import collections
import datetime
import json
import logging
import pathlib
import statistics
import sys
import tempfile
import time

import sqlalchemy as sa
from oslo_utils import uuidutils

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import cluster_generator  # noqa: E402
from tests import static_metrics  # noqa: E402
from tests import strategy_clusters  # noqa: E402
from watcher_ha.common import context as watcher_context  # noqa: E402
from watcher_ha.common import parameters as parameters_mod  # noqa: E402
from watcher_ha.common import plugins  # noqa: E402
from watcher_ha.common.states import ActionPlanState  # noqa: E402
from watcher_ha.common.states import ActionState  # noqa: E402
from watcher_ha.common.states import AuditState  # noqa: E402
from watcher_ha.conf import CONF  # noqa: E402
from watcher_ha.db import engine  # noqa: E402
from watcher_ha.db import installed_plugins  # noqa: E402
from watcher_ha.db import migration  # noqa: E402
from watcher_ha.db import models  # noqa: E402
from watcher_ha.decision_engine.datasources import metrics  # noqa: E402
from watcher_ha.decision_engine.model import garbage_collection  # noqa: E402
from watcher_ha.decision_engine.planner import weight  # noqa: E402
from watcher_ha.decision_engine.planner import workload_stabilization  # noqa: E402,E501
from watcher_ha.decision_engine.what_if import report  # noqa: E402
from watcher_ha.service import service  # noqa: E402

PLANNERS = {
    None: lambda: weight.WeightPlanner(weight.DEFAULT_WEIGHTS,
                                       weight.DEFAULT_PARALLELIZATION),
    'weight': lambda: weight.WeightPlanner(weight.DEFAULT_WEIGHTS,
                                           weight.DEFAULT_PARALLELIZATION),
    'workload_stabilization': lambda: (
        workload_stabilization.WorkloadStabilizationPlanner.from_conf(CONF)),
}


def segments_of(state, count):
    """``count`` failover segments over the hosts, two reserved each."""
    names = sorted(state.nodes)
    per = max(1, len(names) // count)
    found = []
    for index in range(count):
        members = names[index * per:(index + 1) * per]
        empty = [n for n in members if not state.placement.get(n)]
        reserved = set((empty or members)[:2])
        found.append({
            'uuid': uuidutils.generate_uuid(), 'name': 'segment-%02d' % index,
            'recovery_method': 'reserved_host' if index % 2 == 0
            else 'auto', 'enabled': True,
            'hosts': [{'name': n, 'reserved': n in reserved,
                       'on_maintenance': False, 'claimed_by': None}
                      for n in members]})
    return found


def plan_of(name, state, values, protected, goals, strategies):
    """(the planner's actions as rows, the solution) of strategy
    ``name`` on ``state``."""
    cls = strategies[name]
    strategy = cls(goals[cls.goal])
    strategy.protected_hosts = protected
    solution = strategy.execute(
        {}, parameters_mod.check(cls.parameters_spec, {}),
        models={'compute': state},
        metrics=metrics.AuditMetrics([static_metrics.StaticDatasource(
            values)]))
    planned = PLANNERS[cls.planner]().schedule(solution)
    return [{'uuid': p.uuid, 'action_type': p.action_type,
             'input_parameters': p.input_parameters, 'parents': p.parents}
            for p in planned], solution


def timed(repeat, run):
    """((median, min, max) seconds, median CPU seconds) of ``repeat``
    runs, and the last result."""
    seconds, cpu, result = [], [], None
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        result = run()
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    return (statistics.median(seconds), min(seconds), max(seconds),
            statistics.median(cpu)), result


def database(workdir):
    """A migrated SQLite database in ``workdir``, CONF pointed at it."""
    config = pathlib.Path(workdir) / 'bench.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\n[database]\n'
                      'connection = sqlite:///%s/bench.sqlite\n'
                      % (workdir, workdir))
    service.prepare_service(['--config-file', str(config)],
                            program='bench-what-if')
    logging.getLogger().setLevel(logging.WARNING)
    migration.upgrade()
    installed_plugins.sync(watcher_context.admin_context())
    return engine.get_engine()


def store_segments(bind, segments):
    """The failover segments and their hosts, as the instance-ha API
    stores them."""
    now = models.utcnow()
    with bind.begin() as conn:
        for segment in segments:
            segment_id = conn.execute(sa.insert(models.FailoverSegment).values(
                uuid=segment['uuid'], name=segment['name'],
                service_type='COMPUTE', enabled=True,
                recovery_method=segment['recovery_method'],
                created_at=now)).inserted_primary_key[0]
            conn.execute(sa.insert(models.SegmentHost), [
                dict(host, uuid=uuidutils.generate_uuid(),
                     failover_segment_id=segment_id, type='COMPUTE',
                     control_attributes='', created_at=now)
                for host in segment['hosts']])


def store(bind, name, goal, actions, solution):
    """The audit, plan, actions and indicators in the database, as an
    engine stores them: the plan's uuid."""
    now = models.utcnow()
    with bind.begin() as conn:
        goal_id = conn.execute(sa.select(models.Goal.id).where(
            models.Goal.name == goal)).scalar_one()
        strategy_id = conn.execute(sa.select(models.Strategy.id).where(
            models.Strategy.name == name)).scalar_one()
        audit_id = conn.execute(sa.insert(models.Audit).values(
            uuid=uuidutils.generate_uuid(), name='bench-' + name,
            audit_type='ONESHOT', state=AuditState.SUCCEEDED,
            parameters={}, goal_id=goal_id, strategy_id=strategy_id,
            scope=[], created_at=now)).inserted_primary_key[0]
        plan_uuid = uuidutils.generate_uuid()
        plan_id = conn.execute(sa.insert(models.ActionPlan).values(
            uuid=plan_uuid, audit_id=audit_id, strategy_id=strategy_id,
            state=ActionPlanState.RECOMMENDED,
            global_efficacy=solution.global_efficacy(),
            created_at=now)).inserted_primary_key[0]
        conn.execute(sa.insert(models.Action), [
            dict(action, action_plan_id=plan_id, state=ActionState.PENDING,
                 created_at=now) for action in actions])
        indicators = solution.efficacy_indicators()
        if indicators:
            conn.execute(sa.insert(models.EfficacyIndicator), [
                dict(i, uuid=uuidutils.generate_uuid(),
                     action_plan_id=plan_id, created_at=now)
                for i in indicators])
    return plan_uuid


class Model:
    """The engine's model as for_plan reads it."""

    def __init__(self, state):
        self.state = state

    def snapshot(self):
        return self.state

    def info(self):
        return {'name': 'compute', 'generation': self.state.generation,
                'seconds_since_resync': 0.0,
                'seconds_since_notification': None}


def row(label, figures, extra=''):
    return '  %-11s %8.3f %8.3f %8.3f %8.3f%s' % ((label,) + figures
                                                  + (extra,))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--size', default='1000x20000')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--segments', type=int, default=20)
    parser.add_argument('--strategies',
                        default='vm_workload_consolidation,workload_balance')
    args = parser.parse_args()
    hosts, servers = (int(n) for n in args.size.split('x'))
    with tempfile.TemporaryDirectory() as workdir:
        bind = database(workdir)
        garbage_collection.pace(
            CONF.watcher_decision_engine.gc_young_threshold)
        started = time.perf_counter()
        state, values = strategy_clusters.from_reference(
            cluster_generator.generate(hosts, servers, args.seed))
        segments = segments_of(state, args.segments)
        store_segments(bind, segments)
        protected = frozenset(h['name'] for s in segments
                              for h in s['hosts'] if h['reserved'])
        print('%d hosts, %d servers (generated, seed %d; %.1f s), %d '
              'failover segments, %d reserved hosts; %s' % (
                  len(state.nodes), len(state.instances), args.seed,
                  time.perf_counter() - started, len(segments),
                  len(protected), datetime.date.today()), flush=True)
        goals = plugins.load_classes(plugins.GOALS)
        strategies = plugins.load_classes(plugins.STRATEGIES)
        context = watcher_context.admin_context()
        for name in args.strategies.split(','):
            actions, solution = plan_of(name, state, values, protected,
                                        goals, strategies)
            goal = strategies[name].goal
            plan_uuid = store(bind, name, goal, actions, solution)
            kinds = collections.Counter(a['action_type'] for a in actions)
            plan = {'uuid': plan_uuid, 'state': ActionPlanState.RECOMMENDED,
                    'audit_uuid': plan_uuid,
                    'efficacy_indicators': solution.efficacy_indicators(),
                    'global_efficacy': solution.global_efficacy()}
            audit = {'goal_name': goal, 'strategy_name': name,
                     'parameters': {}}
            projection, answer = timed(args.repeat, lambda: report.answer(
                plan, actions, audit, goals[goal], state, Model(state).info(),
                segments, protected))

            def engine_side():
                return json.dumps(report.for_plan(
                    context, plan_uuid, Model(state), goals, host='bench'))
            engine_seconds, encoded = timed(args.repeat, engine_side)
            print('\n%s: %s; %d steps, %d hosts changed' % (
                name, ', '.join('%d %s' % (n, k)
                                for k, n in sorted(kinds.items())),
                answer['steps'], answer['hosts_changed']))
            print('  %-11s %8s %8s %8s %8s   (seconds, %d runs)' % (
                '', 'median', 'min', 'max', 'CPU', args.repeat))
            print(row('projection', projection))
            print(row('engine', engine_seconds,
                      '   answer %d KB' % (len(encoded) // 1024)))
            worst = answer['worst_moment']
            print('  worst moment: %s at %.1f %% (%s), step %d' % (
                worst['host'], worst['load_percent'], worst['resource'],
                worst['step']))


if __name__ == '__main__':
    main()
