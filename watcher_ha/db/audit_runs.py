"""The decision engines' side of audits: claiming them, finishing them,
handing them over, and storing the action plans they produce.

Every claim is a compare-and-swap that stamps ``hostname``; every write an
engine makes afterwards is conditioned on still being that owner, so an
engine that lost the audit (handed over, taken over) writes nothing.
"""

import dataclasses
import functools

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import action_plans
from watcher_ha.db import audits
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import plan_holds
from watcher_ha.db import query
from watcher_ha.db import transitions

Audit = models.Audit
SERVICE = state_machines.SERVICE


class LostOwnership(exception.Conflict):
    msg_fmt = ('Audit %(audit)s is no longer run by this engine (%(host)s), '
               'or its round was closed by another; its result is dropped.')


def get(context, uuid):
    """The audit, archived or not (an engine must see it was deleted)."""
    return query.get_row(context, audits.VIEW, uuid, archived_too=True)


def request_id(context, uuid):
    """The id of the request that created the audit (None if unknown)."""
    with engine.reader.connection.using(context) as conn:
        return conn.execute(sa.select(Audit.request_id).where(
            Audit.uuid == uuid)).scalar()


def claim(context, uuid, host):
    """PENDING -> ONGOING stamped with ``host``; the row, or None if
    another engine (or a user) got there first."""
    try:
        row = get(context, uuid)
    except exception.AuditNotFound:
        return None
    if row['state'] != AuditState.PENDING or not _triggered(row):
        return None
    try:
        transitions.transition(
            context, state_machines.AUDIT, Audit, row, AuditState.ONGOING,
            SERVICE, values={'hostname': host})
    except exception.Conflict:
        return None
    return get(context, uuid)


def _triggered(row):
    """An EVENT audit runs once its event came (the webhook stamps
    next_run_time); the others as soon as they are PENDING."""
    return (row['audit_type'] != AuditType.EVENT
            or row['next_run_time'] is not None)


@engine.retry_on_deadlock
def finish(context, row, host, state, status_message=None):
    """ONGOING -> ``state`` if ``host`` still owns the audit."""
    with engine.writer.using(context) as session:
        moved = transitions.write(
            session, Audit, [Audit.id == row['id']], target=state,
            states=(AuditState.ONGOING,), owner=host,
            values={'status_message': status_message})
    if not moved:
        raise LostOwnership(audit=row['uuid'], host=host)


@engine.retry_on_deadlock
def release(context, host, uuids=None):
    """Hand ONGOING audits of ``host`` back (PENDING, no owner) so that any
    engine takes them; ``uuids`` limits it to those. Returns how many."""
    where = [] if uuids is None else [Audit.uuid.in_(list(uuids))]
    with engine.writer.using(context) as session:
        return transitions.write(
            session, Audit, where, target=AuditState.PENDING,
            states=(AuditState.ONGOING,), owner=host,
            values={'hostname': None})


def unclaimed(context, grace_seconds, limit=50):
    """UUIDs of PENDING audits left alone for ``grace_seconds``."""
    return query.left_alone(context, Audit, grace_seconds, [
        Audit.state == AuditState.PENDING,
        Audit.deleted_at.is_(None),
        sa.or_(Audit.audit_type != AuditType.EVENT,
               Audit.next_run_time.is_not(None))], limit)


def due_continuous(context, host, now):
    """Continuous audits ``host`` runs whose next round is due."""
    with engine.reader.connection.using(context) as conn:
        return list(conn.execute(
            sa.select(Audit.uuid).where(
                Audit.audit_type == AuditType.CONTINUOUS,
                Audit.state == AuditState.ONGOING,
                Audit.hostname == host,
                sa.or_(Audit.next_run_time.is_(None),
                       Audit.next_run_time <= now))
            .order_by(Audit.next_run_time)).scalars())


def round_of(row):
    """The due time of the round ``row`` (a continuous audit) was read
    in: its next_run_time, or for its first round, due at once, when it
    was created. Recorded on the round's plan, one plan per round."""
    return row['next_run_time'] or row['created_at']


def _round_is(row):
    """The round ``row`` was read in is still the one due: nobody ran it
    since (the compare half of a round's compare-and-swap)."""
    previous = row['next_run_time']
    return (Audit.next_run_time.is_(None) if previous is None
            else Audit.next_run_time == previous)


@engine.retry_on_deadlock
def advance_round(context, row, host, next_run_time):
    """Close the round ``row`` was due for without a plan (it failed, or
    the audit's start_time is ahead): True if ``host`` still owned the
    audit and nobody closed the round already."""
    with engine.writer.using(context) as session:
        return bool(transitions.write(
            session, Audit, [Audit.id == row['id'], _round_is(row)],
            states=(AuditState.ONGOING,), owner=host,
            values={'next_run_time': next_run_time}))


def ongoing(context):
    """(uuid, audit_type, hostname) of every ONGOING audit."""
    with engine.reader.connection.using(context) as conn:
        return list(conn.execute(
            sa.select(Audit.uuid, Audit.audit_type, Audit.hostname).where(
                Audit.state == AuditState.ONGOING,
                Audit.deleted_at.is_(None)).order_by(Audit.id)))


@engine.retry_on_deadlock
def change_owner(context, uuid, previous, new):
    """Move an ONGOING audit from ``previous`` (a host, or None) to
    ``new``, if ``previous`` still has it: True for the one winner."""
    with engine.writer.using(context) as session:
        return bool(transitions.write(
            session, Audit, [Audit.uuid == uuid],
            states=(AuditState.ONGOING,), owner=previous,
            values={'hostname': new}))


# Why a plan of a continuous audit ended without running.
SUPERSEDED_BY_ROUND = ('superseded by action plan %s of a later round of '
                       'its continuous audit')


def _cancel_recommended(session, audit_id, plan_uuid):
    """A new round's plan replaces the plans nobody started: each one
    nobody started meanwhile (compare-and-swap on the version read), with
    its actions. Returns the UUIDs of the plans cancelled."""
    ActionPlan = models.ActionPlan
    stale = session.execute(
        sa.select(ActionPlan.id, ActionPlan.uuid, ActionPlan.version).where(
            ActionPlan.audit_id == audit_id,
            ActionPlan.state == ActionPlanState.RECOMMENDED)).all()
    cancelled = []
    for plan in stale:
        # An operator may have started it since the SELECT: then it is
        # not RECOMMENDED any more, and neither it nor its actions move.
        if transitions.write(
                session, ActionPlan, [ActionPlan.id == plan.id],
                target=ActionPlanState.CANCELLED,
                states=(ActionPlanState.RECOMMENDED,), version=plan.version,
                values={'status_message': SUPERSEDED_BY_ROUND % plan_uuid}):
            transitions.write(
                session, models.Action,
                [models.Action.action_plan_id == plan.id],
                target=ActionState.CANCELLED, states=(ActionState.PENDING,))
            cancelled.append(plan.uuid)
    return cancelled


@dataclasses.dataclass(frozen=True)
class Stored:
    """A plan stored by store_plan: its UUID, the UUIDs of the earlier
    plans it replaced, whether it was stored started (auto_trigger), and
    if auto_trigger could not start it, why."""
    plan: str
    cancelled: list
    started: bool = False
    start_refused: str | None = None


def store_plan(context, row, host, strategy_id, planned, indicators,
               global_efficacy, finish_audit, next_run_time=None,
               start=False, note=None):
    """Store the plan an audit produced, in one transaction, if ``host``
    still owns the audit. ``finish_audit`` also moves a one-shot or event
    audit to SUCCEEDED, if nobody changed the audit since ``row`` was read
    (an operator's suspend, resume or edit makes the result stale). For a
    continuous audit the same UPDATE closes the round ``row`` was due for
    (``next_run_time`` is the next one), so a round has exactly one plan
    even when an engine dies or is paused in the middle of it; its earlier
    RECOMMENDED plans are cancelled. The plan records its round, under a
    unique key: should two engines ever both believe they close one round,
    the database refuses the second plan, dropped like any result of a
    round closed by another.

    ``start`` (auto_trigger): the plan is stored started (PENDING), with
    its holds on what it touches, in the same transaction: no crash
    between the two can leave it unstarted. If another started plan holds
    some of that, it is stored RECOMMENDED with the reason as its status
    message. ``note``: what the strategy says of its plan (that it falls
    short of the goal), the plan's status message (after the reason it
    was not started, if any). Returns Stored."""
    plan_uuid = uuidutils.generate_uuid()
    stored = functools.partial(_store, context, plan_uuid, row, host,
                               strategy_id, planned, indicators,
                               global_efficacy, finish_audit, next_run_time,
                               note=note)
    if not (start and planned):
        return stored()
    wanted = action_plans.resources_of(
        {'action_type': a.action_type,
         'input_parameters': a.input_parameters} for a in planned)
    try:
        return plan_holds.taking_holds(context, -1, plan_uuid, wanted,
                                         lambda: stored(wanted))
    except LostOwnership:
        raise
    except exception.Conflict as held:
        return stored(refused='auto_trigger could not start it: %s' % held)


@engine.retry_on_deadlock
def _store(context, plan_uuid, row, host, strategy_id, planned, indicators,
           global_efficacy, finish_audit, next_run_time, wanted=None,
           refused=None, note=None):
    """store_plan's transaction; ``wanted``: start the plan, holding
    those resources (DBDuplicateEntry if one is held)."""
    now = models.utcnow()
    with engine.writer.using(context) as session:
        if finish_audit:
            # An EVENT audit's trigger is consumed by this run.
            closed = transitions.write(
                session, Audit, [Audit.id == row['id']],
                target=AuditState.SUCCEEDED, states=(AuditState.ONGOING,),
                owner=host, version=row['version'],
                values={'status_message': None, 'next_run_time': None})
        else:
            closed = transitions.write(
                session, Audit, [Audit.id == row['id'], _round_is(row)],
                states=(AuditState.ONGOING,), owner=host,
                values={'next_run_time': next_run_time})
        if not closed:
            raise LostOwnership(audit=row['uuid'], host=host)
        stale_uuids = [] if finish_audit else _cancel_recommended(
            session, row['id'], plan_uuid)
        if not planned:
            # An empty plan has nothing left to do.
            state = ActionPlanState.SUCCEEDED
        elif wanted is not None:
            state = ActionPlanState.PENDING
        else:
            state = ActionPlanState.RECOMMENDED
        try:
            plan_id = action_plans.insert_plan(
                session, planned, indicators, now, uuid=plan_uuid,
                audit_id=row['id'], strategy_id=strategy_id, state=state,
                status_message='; '.join(
                    m for m in (refused, note) if m) or None,
                global_efficacy=global_efficacy,
                audit_round=None if finish_audit else round_of(row),
                planned_by=host, request_id=row['request_id'])
        except db_exc.DBDuplicateEntry:
            # The round has its plan already; the transaction rolls back.
            raise LostOwnership(audit=row['uuid'], host=host)
        if wanted is not None:
            # A hold taken elsewhere rolls the whole transaction back.
            plan_holds.insert(session, plan_id, wanted)
    return Stored(plan_uuid, stale_uuids, started=wanted is not None,
                  start_refused=refused)
