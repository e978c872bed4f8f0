"""The appliers' side of action plans: claiming a plan, moving its actions
through their states, finishing or handing the plan over.

As with audits, the claim stamps ``hostname`` with a compare-and-swap and
every later write checks the stamp: a duplicate launch, or an applier that
lost the plan, cannot run an action twice.
"""

import datetime

import sqlalchemy as sa

from watcher_ha.common import exception
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import action_plans
from watcher_ha.db import claims
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query

ActionPlan = models.ActionPlan
Action = models.Action
SERVICE = state_machines.SERVICE

# Plans an applier holds.
RUNNING = (ActionPlanState.ONGOING, ActionPlanState.CANCELLING)
# Actions a cancelled plan takes down with it.
UNFINISHED = (ActionState.PENDING, ActionState.ONGOING,
              ActionState.CANCELLING)


class LostPlan(exception.Conflict):
    msg_fmt = ('Action plan %(plan)s is no longer run by this applier '
               '(%(host)s).')


def get(context, uuid):
    return query.get_row(context, action_plans.PLAN_VIEW, uuid,
                         archived_too=True)


def _plan_owned(plan, host, states=(ActionPlanState.ONGOING,
                                    ActionPlanState.CANCELLING)):
    return (ActionPlan.id == plan['id'], ActionPlan.hostname == host,
            ActionPlan.state.in_(states))


def _lock(session, *where):
    """Lock the plan rows matching ``where`` for this transaction; how many.

    An UPDATE that changes nothing, rather than SELECT ... FOR UPDATE: it
    locks the rows on MariaDB and PostgreSQL alike, and on SQLite it takes
    the write lock at once (waiting for it) instead of upgrading a read
    snapshot later, which fails at once when another writer came between.
    """
    return session.execute(sa.update(ActionPlan).where(*where).values(
        version=ActionPlan.version)).rowcount


@engine.retry_on_deadlock
def claim(context, uuid, host):
    """PENDING -> ONGOING stamped with ``host``: the plan row, or None if
    another applier (or a user's cancel) got there first."""
    with engine.writer.using(context) as session:
        claimed = session.execute(sa.update(ActionPlan).where(
            ActionPlan.uuid == uuid,
            ActionPlan.state == ActionPlanState.PENDING).values(
                state=ActionPlanState.ONGOING, hostname=host,
                version=ActionPlan.version + 1,
                updated_at=models.utcnow())).rowcount
    return get(context, uuid) if claimed else None


def actions_of(context, plan):
    """The plan's actions, in creation order."""
    with engine.reader.connection.using(context) as conn:
        return [dict(row._mapping) for row in conn.execute(
            sa.select(Action.__table__).where(
                Action.action_plan_id == plan['id'],
                Action.deleted_at.is_(None)).order_by(Action.id))]


def plan_state(context, plan):
    with engine.reader.connection.using(context) as conn:
        return conn.execute(sa.select(ActionPlan.state).where(
            ActionPlan.id == plan['id'])).scalar()


@engine.retry_on_deadlock
def move_action(context, plan, host, action, source, target,
                status_message=None):
    """Move one action from ``source`` to ``target`` while ``host`` runs
    its plan. Returns False if the action was not in ``source`` (skipped by
    a user, done by an earlier run); raises LostPlan if the plan is gone."""
    assert state_machines.ACTION.is_allowed(source, target, SERVICE)
    with engine.writer.using(context) as session:
        if not _lock(session, *_plan_owned(plan, host)):
            raise LostPlan(plan=plan['uuid'], host=host)
        return bool(session.execute(sa.update(Action).where(
            Action.id == action['id'], Action.state == source).values(
                state=target, status_message=status_message,
                version=Action.version + 1,
                updated_at=models.utcnow())).rowcount)


@engine.retry_on_deadlock
def finish(context, plan, host, target, status_message=None,
           unfinished=(ActionState.PENDING,)):
    """Move the plan from ONGOING or CANCELLING to ``target``; its actions
    in ``unfinished`` states are cancelled with it (unless it succeeded).
    Returns (the state it was in, the cancelled actions as (uuid, state
    before)), or None if ``host`` no longer owned it."""
    sources = state_machines.ACTION_PLAN.sources_of(target, SERVICE)
    now = models.utcnow()
    cancelled = []
    with engine.writer.using(context) as session:
        if not _lock(session, *_plan_owned(plan, host, sources)):
            return None
        before = session.execute(sa.select(ActionPlan.state).where(
            ActionPlan.id == plan['id'])).scalar()
        session.execute(sa.update(ActionPlan).where(
            ActionPlan.id == plan['id']).values(
                state=target, status_message=status_message,
                version=ActionPlan.version + 1, updated_at=now))
        if target != ActionPlanState.SUCCEEDED:
            where = (Action.action_plan_id == plan['id'],
                     Action.state.in_(unfinished))
            cancelled = [tuple(row) for row in session.execute(
                sa.select(Action.uuid, Action.state).where(*where))]
            session.execute(sa.update(Action).where(*where).values(
                state=ActionState.CANCELLED, version=Action.version + 1,
                updated_at=now))
        claims.release(session, [plan['id']])
    return before, cancelled


def release(context, host, uuids=None):
    """Hand the plans ``host`` runs back, as it stops.

    ONGOING plans go back to PENDING with no owner, for any applier to
    take; their interrupted actions stay ONGOING for the taker to check
    (see applier/recovery.py). CANCELLING plans end CANCELLED, as finish()
    ends them: their operator asked for it. Returns (the UUIDs handed
    back, and for each plan cancelled (uuid, what finish() returned)).
    """
    handed = _hand_back(context, host, uuids)
    ended = []
    for plan in _held(context, host, uuids, ActionPlanState.CANCELLING):
        finished = finish(context, plan, host, ActionPlanState.CANCELLED,
                          unfinished=UNFINISHED)
        if finished is not None:
            ended.append((plan['uuid'], finished))
    return handed, ended


def _held_by(host, uuids, state):
    """The WHERE clause of the plans in ``state`` that ``host`` holds
    (among ``uuids``, unless None)."""
    where = [ActionPlan.hostname == host, ActionPlan.state == state]
    if uuids is not None:
        where.append(ActionPlan.uuid.in_(list(uuids)))
    return where


def _held(context, host, uuids, state):
    """Plans in ``state`` that ``host`` holds (among ``uuids``)."""
    where = _held_by(host, uuids, state)
    with engine.reader.connection.using(context) as conn:
        return [dict(row._mapping) for row in conn.execute(sa.select(
            ActionPlan.id, ActionPlan.uuid).where(*where).order_by(
                ActionPlan.id))]


@engine.retry_on_deadlock
def _hand_back(context, host, uuids):
    where = _held_by(host, uuids, ActionPlanState.ONGOING)
    with engine.writer.using(context) as session:
        if not _lock(session, *where):
            return []
        handed = list(session.execute(
            sa.select(ActionPlan.uuid).where(*where).order_by(
                ActionPlan.id)).scalars())
        session.execute(sa.update(ActionPlan).where(*where).values(
            state=ActionPlanState.PENDING, hostname=None,
            version=ActionPlan.version + 1, updated_at=models.utcnow()))
    return handed


def interrupted(context, plan):
    """The plan's actions left ONGOING by an applier that stopped or died
    while running them."""
    return [a for a in actions_of(context, plan)
            if a['state'] == ActionState.ONGOING]


def unclaimed(context, grace_seconds, limit=50):
    """UUIDs of started (PENDING) plans left alone for ``grace_seconds``."""
    cutoff = models.utcnow() - datetime.timedelta(seconds=grace_seconds)
    with engine.reader.connection.using(context) as conn:
        return list(conn.execute(
            sa.select(ActionPlan.uuid).where(
                ActionPlan.state == ActionPlanState.PENDING,
                ActionPlan.deleted_at.is_(None),
                sa.func.coalesce(ActionPlan.updated_at,
                                 ActionPlan.created_at) <= cutoff)
            .order_by(ActionPlan.id).limit(limit)).scalars())


def running(context):
    """(uuid, hostname) of every plan an applier is running."""
    with engine.reader.connection.using(context) as conn:
        return list(conn.execute(
            sa.select(ActionPlan.uuid, ActionPlan.hostname).where(
                ActionPlan.state.in_(RUNNING),
                ActionPlan.deleted_at.is_(None)).order_by(ActionPlan.id)))


@engine.retry_on_deadlock
def adopt(context, uuid, previous, host):
    """Make ``host`` the runner of a plan ``previous`` was running (it is
    gone): True for the one applier that wins."""
    with engine.writer.using(context) as session:
        return bool(session.execute(sa.update(ActionPlan).where(
            ActionPlan.uuid == uuid, ActionPlan.state.in_(RUNNING),
            ActionPlan.hostname.is_(None) if previous is None
            else ActionPlan.hostname == previous).values(
                hostname=host, version=ActionPlan.version + 1,
                updated_at=models.utcnow())).rowcount)
