"""Every compare-and-swap and every claim holds when the racers write
through different Galera nodes (issue 30).

Galera certifies optimistically: a node locks rows for its own
transactions only (SELECT ... FOR UPDATE, or an UPDATE that changes
nothing, locks nothing on the other nodes), and of two transactions of
two nodes that wrote the same row, the one certified second fails at
COMMIT with a deadlock (1213). Each test races two writer processes, one
on controller 1's node and one on controller 2's, ``ROUNDS`` times, and
checks that the loser always lost cleanly (a lost race reported as such,
never an error, never a second winner). It also counts the certification
failures the rounds met, so that a pass is not one where the writers
never overlapped.
"""

import datetime

import pytest
import sqlalchemy as sa

from tests import factories
from tests.helpers import galera
from tools import controllers
from watcher_ha.common import context
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import AuditState
from watcher_ha.db import action_plans
from watcher_ha.db import audits
from watcher_ha.db import engine as db_engine
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import models
from watcher_ha.db import plan_runs
from watcher_ha.db import reserved_hosts
from watcher_ha.db import transitions

pytestmark = [pytest.mark.functional, pytest.mark.three_controllers]

ROUNDS = 100
GENERATED = datetime.datetime(2026, 11, 24, 10, 0, 0)
DOWN = {'event': 'STOPPED', 'host_status': 'NORMAL',
        'cluster_status': 'OFFLINE'}


@pytest.fixture
def writers(galera_database):
    """A writer on controller 1's Galera node and one on controller 2's."""
    with galera.Writers([galera_database['c1'],
                         galera_database['c2']]) as made:
        yield made


def _conflicts(members):
    """Certification failures and brute-force aborts so far, summed over
    the nodes."""
    total = 0
    for controller in members:
        status = controllers.galera_status(controller)
        total += int(status.get('wsrep_local_cert_failures', 0))
        total += int(status.get('wsrep_local_bf_aborts', 0))
    return total


def _engine():
    return db_engine.get_engine()


# What the writers run (by name, in their own processes).

def _first_free(held, free):
    return [] if held else free[:1]


def hold_first_free(segment_uuid, recovery):
    return reserved_hosts.hold(context.admin_context(), segment_uuid,
                                recovery, _first_free)


def report_failure(hostname, seconds):
    return host_notifications.create_notification(
        context.admin_context(),
        {'type': 'COMPUTE_HOST', 'hostname': hostname, 'payload': DOWN,
         'generated_time': GENERATED + datetime.timedelta(seconds=seconds)},
        duplicate_window=180)['uuid']


def cancel_audit(row):
    return transitions.transition(
        context.admin_context(), state_machines.AUDIT, models.Audit, row,
        AuditState.CANCELLED, state_machines.USER)


def claim_plan(uuid, host):
    plan = plan_runs.claim(context.admin_context(), uuid, host)
    return plan and plan['hostname']


def adopt_plan(uuid, gone, host):
    return plan_runs.adopt(context.admin_context(), uuid, gone, host)


def start_plan(uuid):
    row = action_plans.get_plan(context.admin_context(), uuid)
    action_plans.transition(context.admin_context(), row,
                            ActionPlanState.PENDING)
    return uuid


# The tests.

def _segment(name, failed, reserved):
    ctx = context.admin_context()
    segment = failover_segments.create_segment(ctx, {
        'name': name, 'service_type': 'COMPUTE',
        'recovery_method': 'reserved_host'})
    for host in failed + reserved:
        failover_segments.create_host(ctx, segment['uuid'], {
            'name': host, 'type': 'COMPUTE', 'control_attributes': '',
            'reserved': host in reserved})
    return segment


def _holders(names):
    with _engine().connect() as conn:
        return dict(conn.execute(sa.select(
            models.SegmentHost.name, models.SegmentHost.claimed_by).where(
                models.SegmentHost.name.in_(names))).all())


def test_two_failures_never_get_one_reserved_host(three_controllers,
                                                   writers):
    """Two hosts of a segment fail at once; each recovery holds the first
    free of the segment's two reserved hosts, one through controller 1's
    node and one through controller 2's: each gets a host of its own,
    ROUNDS times out of ROUNDS."""
    before = _conflicts(three_controllers)
    double, errors, short = [], [], []
    for round_ in range(ROUNDS):
        failed = ['failed-%d-a' % round_, 'failed-%d-b' % round_]
        spares = ['spare-%d-a' % round_, 'spare-%d-b' % round_]
        segment = _segment('seg-%d' % round_, failed, spares)
        recoveries = ['recovery-%d-a' % round_, 'recovery-%d-b' % round_]
        outcomes = writers.race([
            (hold_first_free, (segment['uuid'], recovery))
            for recovery in recoveries])
        errors += [o for o in outcomes if isinstance(o, galera.Failed)]
        held = dict(zip(recoveries, outcomes))
        holders = _holders(spares)
        for recovery, hosts in held.items():
            if isinstance(hosts, galera.Failed):
                continue
            if len(hosts) != 1:
                short.append((round_, recovery, hosts))
            double += [(round_, host, holders[host], recovery)
                       for host in hosts if holders[host] != recovery]
    met = _conflicts(three_controllers) - before
    print('reserved hosts: %d rounds, %d certification conflicts, '
          '%d hosts given twice, %d errors, %d recoveries without a host'
          % (ROUNDS, met, len(double), len(errors), len(short)))
    assert double == []
    assert errors == []
    assert short == []
    assert met > 0, 'the writers never raced'


def test_one_report_of_a_failure_through_two_nodes(three_controllers,
                                                    writers):
    """A monitor's report delivered twice at once, through two API
    workers writing to two nodes: one notification, one duplicate
    refused, ROUNDS times out of ROUNDS (the duplicate check and the
    insert run under the segment's lock)."""
    before = _conflicts(three_controllers)
    outcomes_seen = []
    for round_ in range(ROUNDS):
        host = 'compute-%d' % round_
        _segment('reports-%d' % round_, [host], [])
        outcomes = writers.race([(report_failure, (host, 0)),
                                 (report_failure, (host, 1))])
        kinds = sorted('accepted' if isinstance(o, str) else o.error
                       for o in outcomes)
        outcomes_seen.append(kinds)
    met = _conflicts(three_controllers) - before
    twice = [k for k in outcomes_seen if k == ['accepted', 'accepted']]
    with _engine().connect() as conn:
        stored = conn.execute(sa.select(sa.func.count()).select_from(
            models.HostNotification)).scalar()
    print('reports: %d rounds, %d certification conflicts, %d failures '
          'recorded twice' % (ROUNDS, met, len(twice)))
    assert stored == ROUNDS
    assert all(k == ['DuplicateNotification', 'accepted']
               for k in outcomes_seen), outcomes_seen
    assert met > 0, 'the writers never raced'


def test_one_winner_per_compare_and_swap_through_two_nodes(
        three_controllers, writers):
    """Two users cancel one audit at once through two nodes: one moves
    it, the other gets a clean 409 (StateConflict), never an error."""
    before = _conflicts(three_controllers)
    seen = []
    for _round in range(ROUNDS):
        audit = factories.audit(_engine(), state=AuditState.PENDING)
        row = audits.get(context.admin_context(), audit['uuid'])
        outcomes = writers.race([(cancel_audit, (row,))] * 2)
        seen.append(sorted(o.error if isinstance(o, galera.Failed)
                           else 'moved' for o in outcomes))
    met = _conflicts(three_controllers) - before
    print('compare-and-swap: %d rounds, %d certification conflicts, %s'
          % (ROUNDS, met, sorted({tuple(s) for s in seen})))
    assert all(s == ['StateConflict', 'moved'] for s in seen), seen
    assert met > 0, 'the writers never raced'


def test_one_applier_claims_and_one_adopts_through_two_nodes(
        three_controllers, writers):
    """Two appliers on two nodes take one plan at once, then adopt it at
    once from its gone owner: one wins each time, the other is told it
    lost (None, False), never an error."""
    before = _conflicts(three_controllers)
    claims, adoptions = [], []
    for _round in range(ROUNDS // 2):
        plan, _actions = factories.action_plan(
            _engine(), factories.audit(_engine()),
            state=ActionPlanState.PENDING)
        claims.append(sorted(map(repr, writers.race([
            (claim_plan, (plan['uuid'], 'applier-1')),
            (claim_plan, (plan['uuid'], 'applier-2'))]))))
        owner = plan_runs.get(context.admin_context(),
                              plan['uuid'])['hostname']
        adoptions.append(sorted(map(repr, writers.race([
            (adopt_plan, (plan['uuid'], owner, 'applier-3')),
            (adopt_plan, (plan['uuid'], owner, 'applier-4'))]))))
    met = _conflicts(three_controllers) - before
    print('claims and adoptions: %d rounds, %d certification conflicts'
          % (ROUNDS // 2, met))
    assert all(c in (["'applier-1'", 'None'], ["'applier-2'", 'None'])
               for c in claims), claims
    assert all(a == ['False', 'True'] for a in adoptions), adoptions
    assert met > 0, 'the writers never raced'


def _migrate(server, source, destination):
    return ('migrate', {'resource_id': server, 'migration_type': 'live',
                        'source_node': source,
                        'destination_node': destination})


def test_one_start_of_overlapping_plans_through_two_nodes(
        three_controllers, writers):
    """Two plans moving the same server are started at once through two
    nodes: the unique key of the holds lets one start, the other gets
    409 naming the holder (its duplicate key is found by certification
    when the two inserts went through two nodes)."""
    before = _conflicts(three_controllers)
    seen = []
    for round_ in range(ROUNDS):
        server = 'server-%d' % round_
        plans = [factories.action_plan(_engine(), factories.audit(_engine()),
                                       kinds=[_migrate(server, 'n1', dest)])[0]
                 for dest in ('n2', 'n3')]
        outcomes = writers.race([(start_plan, (p['uuid'],)) for p in plans])
        seen.append(sorted(o.error if isinstance(o, galera.Failed)
                           else 'started' for o in outcomes))
        for plan in plans:
            # The next round's plans overlap nothing of this one.
            row = action_plans.get_plan(context.admin_context(), plan['uuid'])
            if row['state'] == ActionPlanState.PENDING:
                action_plans.transition(context.admin_context(), row,
                                        ActionPlanState.CANCELLED)
    met = _conflicts(three_controllers) - before
    print('plan starts: %d rounds, %d certification conflicts, %s'
          % (ROUNDS, met, sorted({tuple(s) for s in seen})))
    assert all(s == ['PlanOverlap', 'started'] for s in seen), seen
    assert met > 0, 'the writers never raced'

