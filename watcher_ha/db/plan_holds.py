"""The resources a started action plan holds.

Starting a plan (RECOMMENDED -> PENDING) inserts one row per resource its
actions touch, in the transaction of the state change; the unique key on
(resource_type, resource_id) lets exactly one plan hold a resource, on any
number of API workers and hosts. A plan's rows go when it ends (in the
transaction of that state change); rows left by a plan that ended without
releasing them are cleared when they stand in someone's way.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc

from watcher_ha.common import exception
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import engine
from watcher_ha.db import models

Hold = models.PlanHold
ActionPlan = models.ActionPlan

# A plan in these states keeps its holds.
HOLDING = (ActionPlanState.PENDING, ActionPlanState.ONGOING,
           ActionPlanState.CANCELLING)


class PlanOverlap(exception.Conflict):
    error_code = 'action_plan_overlap'
    msg_fmt = ('Action plan %(plan)s cannot start: %(resources)s %(verb)s '
               'held by action plan %(holders)s. Wait until %(pronoun)s '
               'finished or cancel %(pronoun_object)s, then start it again.')


def _label(resource_type, resource_id):
    return '%s %s' % (resource_type, resource_id)


def insert(session, plan_id, resources):
    """Insert the holds of ``resources`` ({(type, id)}) for the plan, in
    the caller's transaction. A resource held already raises
    DBDuplicateEntry, which aborts that transaction (no savepoint: InnoDB
    rolls a deadlock back whole, savepoint included)."""
    if resources:
        session.execute(sa.insert(Hold), [
            dict(resource_type=kind, resource_id=ident,
                 action_plan_id=plan_id, created_at=models.utcnow())
            for kind, ident in sorted(resources)])


def _where(wanted):
    return sa.tuple_(Hold.resource_type, Hold.resource_id).in_(
        sorted(wanted))


@engine.retry_on_deadlock
def clear_stale(context, wanted):
    """Drop holds on ``wanted`` whose plan holds nothing any more (it
    ended without releasing them); how many."""
    holding = sa.select(ActionPlan.id).where(ActionPlan.state.in_(HOLDING))
    with engine.writer.using(context) as session:
        return session.execute(sa.delete(Hold).where(
            _where(wanted), Hold.action_plan_id.not_in(holding))).rowcount


def taking_holds(context, plan_id, plan_uuid, wanted, attempt):
    """Run ``attempt()``: a transaction that inserts, with whatever else it
    writes, the holds of ``wanted`` (a set it may fill) for the plan. If
    one is held (DBDuplicateEntry: that transaction is gone), holds left
    by plans that ended without releasing them are cleared and it is tried
    once more; really held, it raises the Conflict naming who holds
    what."""
    try:
        return attempt()
    except db_exc.DBDuplicateEntry:
        if not clear_stale(context, wanted):
            raise overlap(context, plan_id, plan_uuid, wanted)
    try:
        return attempt()
    except db_exc.DBDuplicateEntry:
        raise overlap(context, plan_id, plan_uuid, wanted)


def overlap(context, plan_id, plan_uuid, wanted):
    """The error for a start that lost: who holds which of ``wanted``."""
    with engine.reader.connection.using(context) as conn:
        rows = conn.execute(
            sa.select(Hold.resource_type, Hold.resource_id,
                      ActionPlan.uuid, ActionPlan.state)
            .join(ActionPlan, Hold.action_plan_id == ActionPlan.id)
            .where(_where(wanted), Hold.action_plan_id != plan_id)).all()
    if not rows:
        # The holder ended between our insert and this read.
        return exception.Conflict(
            'Action plan %s cannot start: another plan held some of its '
            'resources a moment ago. Start it again.' % plan_uuid)
    held = sorted(_label(r.resource_type, r.resource_id) for r in rows)
    holders = sorted({(r.uuid, r.state) for r in rows})
    return PlanOverlap(
        plan=plan_uuid, resources=', '.join(held),
        verb='is' if len(held) == 1 else 'are',
        holders=', '.join('%s (%s)' % holder for holder in holders),
        pronoun='it has' if len(holders) == 1 else 'they have',
        pronoun_object='it' if len(holders) == 1 else 'them')


def release(session, plan_ids):
    """Drop the holds of plans that ended, in the caller's transaction."""
    if plan_ids:
        session.execute(sa.delete(Hold).where(
            Hold.action_plan_id.in_(list(plan_ids))))


def of_plan(session, plan_id):
    return sorted((r.resource_type, r.resource_id) for r in session.execute(
        sa.select(Hold.resource_type, Hold.resource_id).where(
            Hold.action_plan_id == plan_id)))


def holders(context, wanted):
    """{(type, id): the uuid of the started plan holding it} of those of
    ``wanted`` that a started plan holds."""
    if not wanted:
        return {}
    with engine.reader.connection.using(context) as conn:
        rows = conn.execute(
            sa.select(Hold.resource_type, Hold.resource_id, ActionPlan.uuid)
            .join(ActionPlan, Hold.action_plan_id == ActionPlan.id)
            .where(_where(wanted), ActionPlan.state.in_(HOLDING))).all()
    return {(r.resource_type, r.resource_id): r.uuid for r in rows}
