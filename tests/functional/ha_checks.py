"""What the multi-host tests create and check: continuous audits, their
owners and plans, and that no round is doubled, skipped or left
unannounced, from the plans' ``audit_round`` and ``planned_by`` and from
the notifications on the bus."""

import collections
import datetime
import time

import requests
import sqlalchemy as sa

from tests.functional import daemons
from tests.functional import fixtures
from tests.functional.fixtures import wait_for
from watcher_ha.db import models

ENGINES = ['engine-a', 'engine-b', 'engine-c']
APPLIERS = ['applier-a', 'applier-b', 'applier-c']
INTERVAL = 2
# [watcher_decision_engine] max_audit_workers: rounds one engine may have
# in flight.
MAX_AUDIT_WORKERS = 4
STEP = datetime.timedelta(seconds=INTERVAL)


# A new audit's (or pipeline's) strategy begins: cast to its engine at
# once, or taken by the sweep once pending_grace has passed; then the
# engine's own work (a claim, the model, the notification on the bus), on
# an idle machine.
STRATEGY_STARTED = fixtures.Bound(
    daemons.PENDING_GRACE, daemons.SWEEP_INTERVAL, work=3)
# Every stored plan's notification read off the bus by the tests'
# listener: sent after its commit, delivered by the broker, on an idle
# machine (a fixed 15 s once failed under the suite's load).
ANNOUNCED = fixtures.Bound(work=10)


def create_audit(url, **body):
    body.setdefault('goal', 'dummy')
    body.setdefault('strategy', 'dummy')
    resp = requests.post(url + '/v1/audits', json=body, timeout=10)
    assert resp.status_code == 201, resp.text
    return resp.json()['uuid']


def owners(engine, uuids):
    with engine.connect() as conn:
        return dict(conn.execute(sa.select(
            models.Audit.uuid, models.Audit.hostname).where(
                models.Audit.uuid.in_(uuids))).all())


def settled_owners(engine, uuids, quiet=3, timeout=30):
    """The owners once every audit has one and none changed hands for
    ``quiet`` seconds (each engine rebalances every second)."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = owners(engine, uuids)
        if now != last:
            last, since = now, time.monotonic()
        elif all(now.values()) and time.monotonic() - since >= quiet:
            return now
        time.sleep(0.2)
    raise AssertionError('ownership not settled within %s s: %s'
                         % (timeout, last))


def spread_audits(cluster, count, **fields):
    """``count`` continuous audits, and more while an engine holds none.

    The ring places audits by their random uuids: an engine holds none of
    nine about one run in ten. Returns (the audits, their settled
    owners)."""
    audits = [create_audit(cluster.url, audit_type='CONTINUOUS', **fields)
              for _ in range(count)]
    for _ in range(count):
        held = settled_owners(cluster.engine, audits)
        if set(held.values()) == set(ENGINES):
            return audits, held
        audits.append(create_audit(cluster.url, audit_type='CONTINUOUS',
                                   **fields))
    raise AssertionError('%d audits and still not on every engine: %s'
                         % (len(audits), held))


def snapshot(engine, uuids):
    """The audits and their plans as of one moment (one REPEATABLE READ
    transaction): ({audit uuid: audit row}, {audit uuid: [plan row] in
    creation order})."""
    audit, plan = models.Audit, models.ActionPlan
    with engine.connect() as conn:
        conn.execution_options(isolation_level='REPEATABLE READ')
        with conn.begin():
            audits = {row.uuid: row for row in conn.execute(sa.select(
                audit.uuid, audit.created_at, audit.next_run_time,
                audit.hostname, audit.state).where(audit.uuid.in_(uuids)))}
            rows = conn.execute(sa.select(
                audit.uuid.label('audit'), plan.uuid, plan.created_at,
                plan.audit_round, plan.planned_by).join(
                    audit, plan.audit_id == audit.id)
                .where(audit.uuid.in_(uuids)).order_by(plan.id)).all()
    plans = {uuid: [] for uuid in uuids}
    for row in rows:
        plans[row.audit].append(row)
    return audits, plans


def check_schedule(audit, plans, taken_at):
    """The plans of a continuous audit are its rounds, one plan each, none
    skipped, as of ``taken_at`` (when the snapshot was read).

    scheduling.next_run: the first round is due when the audit is created
    and the second ``INTERVAL`` after the first started; after that, a
    round is due ``INTERVAL`` after the previous one, unless the previous
    one started more than half an interval late: then half an interval
    after it started. A round starts once due and before its plan is
    stored, so each next round is either exactly ``INTERVAL`` after its
    predecessor, or half an interval after a moment between its
    predecessor's due time plus half an interval and its predecessor's
    plan. A round closed without a plan would break that chain: the
    audit's next_run_time, the round after its last plan's, ends it.
    """
    rounds = [p.audit_round for p in plans]
    assert rounds, audit.uuid
    assert len(set(rounds)) == len(rounds), (audit.uuid, rounds)
    assert rounds[0] == audit.created_at, (audit.uuid, rounds[0])
    for index, (plan, following) in enumerate(zip(
            plans, rounds[1:] + [audit.next_run_time])):
        due = plan.audit_round
        if index == 0:
            started = following - STEP
            on_schedule = due <= started <= plan.created_at
        else:
            started = following - STEP / 2
            on_schedule = (following == due + STEP
                           or due + STEP / 2 < started <= plan.created_at)
        assert on_schedule, ('audit %s: round %d due %s, its plan made %s, '
                             'then a round due %s' % (
                                 audit.uuid, index, due, plan.created_at,
                                 following))
    # And the rounds go on: none is overdue by more than the slack a busy
    # machine needs.
    assert audit.next_run_time > taken_at - datetime.timedelta(seconds=10), (
        audit.uuid, audit.next_run_time, taken_at)


def check_rounds(cluster, audits, killed=(), bus_outages=()):
    """Every round of every audit has exactly one plan, counted from the
    database (check_schedule) and from the bus (check_announced)."""
    taken_at = models.utcnow()
    rows, plans = snapshot(cluster.engine, audits)
    for uuid in audits:
        check_schedule(rows[uuid], plans[uuid], taken_at)
    check_announced(cluster, plans, killed, bus_outages)
    return plans


def events(notes, uuid):
    """[(event type, host that sent it, payload data)] about ``uuid``."""
    with notes.lock:
        return [(event, publisher.split(':', 1)[1],
                 payload['watcher_object.data'])
                for event, publisher, payload in notes.received
                if payload['watcher_object.data'].get('uuid') == uuid]


def announcements(notes, audits):
    """{plan uuid: [(audit uuid, host that sent it)]}: the
    action_plan.create notifications of the plans of ``audits``."""
    found = collections.defaultdict(list)
    with notes.lock:
        for event, publisher, payload in notes.received:
            data = payload['watcher_object.data']
            if (event == 'action_plan.create'
                    and data['audit_uuid'] in audits):
                found[data['uuid']].append(
                    (data['audit_uuid'], publisher.split(':', 1)[1]))
    return found


def check_announced(cluster, plans, killed=(), bus_outages=()):
    """Each audit has as many action_plan.create notifications on the bus
    as plans in the database: every plan was announced once, by the engine
    that stored it, and no plan the database lacks was announced.

    The exceptions: a notification leaves after its commit, so an engine
    SIGKILLed (``killed``) may have stored plans it never announced: of an
    audit, only its last plan from that engine, and no more than the
    rounds it could have in flight (one per audit worker). And a broker
    that restarts (``bus_outages``: (from, to) UTC times) loses what its
    non-durable queues held: plans stored then may be missing from the
    bus, though none may be announced twice."""
    stored = {p.uuid: p for found in plans.values() for p in found}
    excused = {[p for p in found if p.planned_by == host][-1].uuid
               for found in plans.values() for host in killed
               if any(p.planned_by == host for p in found)}
    excused |= {uuid for uuid, p in stored.items()
                for start, end in bus_outages
                if start <= p.created_at <= end}

    def caught_up():
        announced = announcements(cluster.notes, plans)
        missing = set(stored) - set(announced)
        return missing <= excused and (announced, missing)
    try:
        announced, missing = wait_for(caught_up, ANNOUNCED,
                                     'every plan announced')
    except AssertionError as err:
        unexcused = set(stored) - set(announcements(cluster.notes, plans)) \
            - excused
        raise AssertionError('%s; never announced: %s' % (err, ', '.join(
            '%s (by %s at %s)' % (uuid, stored[uuid].planned_by,
                                  stored[uuid].created_at)
            for uuid in sorted(unexcused)))) from None
    for host in killed:
        assert len([u for u in missing if stored[u].planned_by == host]) \
            <= MAX_AUDIT_WORKERS, missing
    assert {uuid: sends for uuid, sends in announced.items()
            if len(sends) != 1} == {}
    senders = {uuid: sends[0][1] for uuid, sends in announced.items()}
    # Plans stored since the snapshot: in the database now.
    with cluster.engine.connect() as conn:
        later = dict(conn.execute(sa.select(
            models.ActionPlan.uuid, models.ActionPlan.planned_by).where(
                models.ActionPlan.uuid.in_(set(announced) - set(stored)))
        ).all())
    assert set(later) == set(announced) - set(stored)
    stored_by = dict({u: p.planned_by for u, p in stored.items()}, **later)
    assert {u: h for u, h in senders.items() if stored_by[u] != h} == {}
    for audit, found in plans.items():
        on_bus = [p for p in found if p.uuid in announced]
        assert len(on_bus) == len(found) - len(
            [p for p in found if p.uuid in missing]), audit


def strategy_started(notes, audit):
    """The engine that sent audit.strategy.start for ``audit``."""
    hosts = [host for event, host, _ in events(notes, audit)
             if event == 'audit.strategy.start']
    return hosts[-1] if hosts else None


def audit_row(engine, uuid):
    with engine.connect() as conn:
        return conn.execute(sa.select(
            models.Audit.state, models.Audit.hostname).where(
                models.Audit.uuid == uuid)).one()


# From a daemon's death (or pause) to its work adopted: it is presumed
# gone 1.1 to 1.35 times [coordination] member_timeout after it died, seen
# at the next membership read, then the adoption's writes. On an idle
# machine that is the 15 s; a loaded one stretches the writes.
TAKEOVER = fixtures.Bound(1.35 * daemons.MEMBER_TIMEOUT,
                          daemons.MEMBERSHIP_REFRESH, work=0.5)
PLAN_ENDS = ('SUCCEEDED', 'FAILED', 'CANCELLED')


def plan_row(engine, plan_id):
    with engine.connect() as conn:
        plan = conn.execute(sa.select(models.ActionPlan.state,
                                      models.ActionPlan.hostname).where(
            models.ActionPlan.id == plan_id)).one()
        actions = dict(conn.execute(sa.select(
            models.Action.uuid, models.Action.state).where(
                models.Action.action_plan_id == plan_id)).all())
    return plan, actions


def action_starts(cluster, action):
    """The hosts that began ``action``, one per action.execution.start."""
    return [host for event, host, _ in events(cluster.notes, action['uuid'])
            if event == 'action.execution.start']


def adopter(cluster, plan, runner, timeout=TAKEOVER):
    """The applier that adopts ``plan`` once ``runner``, which ran it,
    is gone."""
    return wait_for(
        lambda: {plan_row(cluster.engine, plan['id'])[0].hostname}
        .difference([runner, None]), timeout, 'the plan adopted').pop()


def check_recovered(cluster, plan, action, runner, survivor, timeout):
    """``plan`` ends within ``timeout`` s, SUCCEEDED on ``survivor`` with
    its ``action``, which ``runner`` alone began: recovered by the
    survivor, not executed again."""
    wait_for(lambda: plan_row(cluster.engine, plan['id'])[0].state
             in PLAN_ENDS, timeout, 'the plan ended')
    row, states = plan_row(cluster.engine, plan['id'])
    assert (row.state, row.hostname, states[action['uuid']]) == (
        'SUCCEEDED', survivor, 'SUCCEEDED')
    assert action_starts(cluster, action) == [runner]
