"""The appliers' side of action plans: claiming a plan, moving its actions
through their states, fencing the calls to the cloud, finishing or handing
the plan over.

As with audits, the claim stamps ``hostname`` with a compare-and-swap and
every later write checks the stamp: a duplicate launch, or an applier that
lost the plan, cannot run an action twice.
"""

import dataclasses

import sqlalchemy as sa

from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import action_plans
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import plan_holds
from watcher_ha.db import query
from watcher_ha.db import transitions

ActionPlan = models.ActionPlan
Action = models.Action

# Plans an applier holds.
RUNNING = (ActionPlanState.ONGOING, ActionPlanState.CANCELLING)
# Actions a cancelled plan takes down with it.
UNFINISHED = (ActionState.PENDING, ActionState.ONGOING,
              ActionState.CANCELLING)


class LostPlan(Exception):
    """The plan is no longer run by this applier: nothing was written."""

    def __init__(self, plan, host):
        super().__init__('Action plan %s is no longer run by this applier '
                         '(%s).' % (plan, host))


class PlanCancelling(Exception):
    """The plan is being cancelled: no action may start."""


def get(context, uuid):
    return query.get_row(context, action_plans.PLAN_VIEW, uuid,
                         archived_too=True)


def request_id(context, uuid):
    """The id of the request that started the plan (its audit's if none
    did; None if unknown)."""
    with engine.reader.connection.using(context) as conn:
        return conn.execute(sa.select(ActionPlan.request_id).where(
            ActionPlan.uuid == uuid)).scalar()


def _lock_owned(session, plan, host, states=RUNNING):
    """Lock the plan row if ``host`` runs it (in ``states``): 1, else 0."""
    return transitions.lock(session, ActionPlan,
                            [ActionPlan.id == plan['id']], states=states,
                            owner=host)


def _share_owned(session, plan, host, states=RUNNING):
    """Lock the plan row shared if ``host`` runs it (in ``states``): 1,
    else 0. The writes of one action of a running plan take this: those
    of its other actions go on beside them (a plan's evacuations start
    together), while an adoption, or the plan's end, which lock the row
    for writing, wait for them to commit."""
    return transitions.share(session, ActionPlan,
                             [ActionPlan.id == plan['id']], states=states,
                             owner=host)


@engine.retry_on_deadlock
def claim(context, uuid, host):
    """PENDING -> ONGOING stamped with ``host``: the plan row, or None if
    another applier (or a user's cancel) got there first."""
    with engine.writer.using(context) as session:
        claimed = transitions.write(
            session, ActionPlan, [ActionPlan.uuid == uuid],
            target=ActionPlanState.ONGOING,
            states=(ActionPlanState.PENDING,), values={'hostname': host})
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
                status_message=None, token=None):
    """Move one action from ``source`` to ``target`` while ``host`` runs
    its plan (and, given ``token``, if the action is still at that
    version: the run that began it records its end). Returns the action's
    new version, or None if it was not in ``source`` (skipped by a user,
    done by an earlier run) or not at ``token`` any more; raises
    LostPlan if the plan is gone. Starting an action (to ONGOING) also
    needs the plan ONGOING, in the same transaction: a cancel that came
    in since the caller looked raises PlanCancelling."""
    starting = target == ActionState.ONGOING
    with engine.writer.using(context) as session:
        # Locked shared as _share_owned() does, read once: which state
        # tells a cancelling plan from a lost one.
        state = transitions.shared_state(
            session, ActionPlan, [ActionPlan.id == plan['id']], owner=host)
        if state not in RUNNING:
            raise LostPlan(plan['uuid'], host)
        if starting and state != ActionPlanState.ONGOING:
            raise PlanCancelling()
        if not transitions.write(
                session, Action, [Action.id == action['id']],
                target=target, states=(source,), version=token,
                values={'status_message': status_message}):
            return None
        return session.execute(sa.select(Action.version).where(
            Action.id == action['id'])).scalar()


@engine.retry_on_deadlock
def note_action(context, plan, host, action, state, status_message):
    """Set the status message of an action in ``state`` while ``host``
    runs its plan (what a rollback did to it); True if written."""
    with engine.writer.using(context) as session:
        if not _share_owned(session, plan, host):
            return False
        return bool(transitions.write(
            session, Action, [Action.id == action['id']], states=(state,),
            values={'status_message': status_message}))


@engine.retry_on_deadlock
def pass_fence(context, plan, host, action, state, token):
    """The fence before a call to the cloud: True if ``host`` still runs
    the plan and the action is still in ``state`` at version ``token``
    (nobody took it over since, even to give it back); the pass is
    stamped on the action (``fenced_at``). The plan row is locked shared
    first, as every writer of a running plan's actions locks it: an
    adoption waits for the pass to commit, or the pass sees the
    adoption; the passes of the plan's other actions do not wait."""
    with engine.writer.using(context) as session:
        return bool(_share_owned(session, plan, host) and transitions.write(
            session, Action, [Action.id == action['id']],
            states=(state,), version=token,
            values={'fenced_at': models.utcnow()}, bump=False,
            stamp=False))


def last_fence_pass(context, plan):
    """When a call to the cloud was last let through for one of the
    plan's actions (naive UTC), or None."""
    with engine.reader.connection.using(context) as conn:
        return conn.execute(sa.select(sa.func.max(Action.fenced_at)).where(
            Action.action_plan_id == plan['id'])).scalar()


@dataclasses.dataclass(frozen=True)
class Ended:
    """How a plan ended: the state it was in, the state it ended in (not
    always the one asked for), the message, and the actions cancelled with
    it as (uuid, state before)."""
    before: str
    state: str
    message: str | None
    cancelled: list


# A plan whose cancel came in while its last actions were finishing ends
# CANCELLED, as the operator asked, even if nothing was left to cancel.
CANCELLED_AT_THE_END = ('cancelled as its last actions were finishing; '
                        'every action had ended already')


def _unsuccessful(session, plan):
    """How a plan asked to end SUCCEEDED ends if an action of it keeps it
    from succeeding (state_machines.ACTION_PLAN's guard): (state,
    message), or None if none does. A CANCELLED action was cancelled by
    a settling that chose to cancel the plan and lost its end's commit:
    it ends CANCELLED, as that chose; a FAILED one makes it FAILED."""
    refusing = transitions.refusing(session, ActionPlan, plan['id'],
                                    ActionPlanState.SUCCEEDED)
    cancelled = [a for a in refusing if a['state'] == ActionState.CANCELLED]
    if cancelled:
        return ActionPlanState.CANCELLED, (
            'action %s was cancelled: the plan cannot succeed'
            % cancelled[0]['uuid'])
    if refusing:
        action = refusing[0]
        return ActionPlanState.FAILED, 'action %s (%s) failed: %s' % (
            action['uuid'], action['action_type'],
            action['status_message'] or 'it failed')
    return None


@engine.retry_on_deadlock
def finish(context, plan, host, target, status_message=None,
           unfinished=(ActionState.PENDING,)):
    """Move the plan from ONGOING or CANCELLING to ``target``; its actions
    in ``unfinished`` states are cancelled with it (unless it succeeded).
    A plan asked to end SUCCEEDED while a cancel was coming in ends
    CANCELLED; one with a CANCELLED or FAILED action ends so too (see
    _unsuccessful). Returns Ended, or None if ``host`` no longer ran
    it."""
    with engine.writer.using(context) as session:
        if not _lock_owned(session, plan, host):
            return None
        before = session.execute(sa.select(ActionPlan.state).where(
            ActionPlan.id == plan['id'])).scalar()
        if (target == ActionPlanState.SUCCEEDED
                and before == ActionPlanState.CANCELLING):
            target = ActionPlanState.CANCELLED
            status_message = status_message or CANCELLED_AT_THE_END
        if target == ActionPlanState.SUCCEEDED:
            target, status_message = _unsuccessful(session, plan) or (
                target, status_message)
        transitions.write(session, ActionPlan, [ActionPlan.id == plan['id']],
                          target=target, states=(before,), owner=host,
                          values={'status_message': status_message})
        cancelled = []
        if target != ActionPlanState.SUCCEEDED:
            where = (Action.action_plan_id == plan['id'],
                     Action.state.in_(unfinished))
            cancelled = [tuple(row) for row in session.execute(
                sa.select(Action.uuid, Action.state).where(*where))]
            transitions.write(session, Action, where,
                              target=ActionState.CANCELLED)
        plan_holds.release(session, [plan['id']])
    return Ended(before, target, status_message, cancelled)


def release(context, host, uuids=None):
    """Hand the plans ``host`` runs back, as it stops.

    ONGOING plans go back to PENDING with no owner, for any applier to
    take; their interrupted actions stay ONGOING for the taker to check
    (see applier/takeover.py). A CANCELLING plan with no action left
    running ends CANCELLED, as finish() ends it: its operator asked for
    it. One whose actions were interrupted stays CANCELLING with no owner:
    the applier that adopts it asks those actions what became of them
    before it ends it (an interrupted migration Nova finishes must not be
    recorded as CANCELLED). Returns (the UUIDs of the ONGOING plans handed
    back, for each plan cancelled (uuid, Ended), the UUIDs of the
    CANCELLING plans handed back).
    """
    handed = _hand_back(context, host, uuids, ActionPlanState.ONGOING)
    ended, cancelling = [], []
    for plan in _held(context, host, uuids, ActionPlanState.CANCELLING):
        if interrupted(context, plan):
            cancelling += _hand_back(context, host, [plan['uuid']],
                                     ActionPlanState.CANCELLING)
            continue
        finished = finish(context, plan, host, ActionPlanState.CANCELLED,
                          unfinished=UNFINISHED)
        if finished is not None:
            ended.append((plan['uuid'], finished))
    return handed, ended, cancelling


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
def _hand_back(context, host, uuids, state):
    """Drop ``host``'s ownership of its plans in ``state`` (among
    ``uuids``): ONGOING ones go back to PENDING, CANCELLING ones stay so.
    Returns their UUIDs."""
    where = _held_by(host, uuids, state)
    with engine.writer.using(context) as session:
        if not transitions.lock(session, ActionPlan, where):
            return []
        handed = list(session.execute(
            sa.select(ActionPlan.uuid).where(*where).order_by(
                ActionPlan.id)).scalars())
        transitions.write(
            session, ActionPlan, where,
            target=(ActionPlanState.PENDING
                    if state == ActionPlanState.ONGOING else None),
            states=(state,), owner=host, values={'hostname': None})
    return handed


def interrupted(context, plan):
    """The plan's actions left ONGOING by an applier that stopped or died
    while running them."""
    return interrupted_among(actions_of(context, plan))


def interrupted_among(actions):
    """Those of a plan's ``actions`` (actions_of) left ONGOING."""
    return [a for a in actions if a['state'] == ActionState.ONGOING]


def unclaimed(context, grace_seconds, limit=50):
    """UUIDs of started (PENDING) plans left alone for ``grace_seconds``."""
    return query.left_alone(context, ActionPlan, grace_seconds, [
        ActionPlan.state == ActionPlanState.PENDING,
        ActionPlan.deleted_at.is_(None)], limit)


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
    gone): True for the one applier that wins. The versions of the plan's
    actions move on in the same transaction: a fence checked by
    ``previous`` with its old token (an action it ran, or one it was
    reverting) fails from now on, even if the plan comes back to it
    later."""
    with engine.writer.using(context) as session:
        plan_id = session.execute(sa.select(ActionPlan.id).where(
            ActionPlan.uuid == uuid)).scalar()
        if plan_id is None or not transitions.write(
                session, ActionPlan, [ActionPlan.id == plan_id],
                states=RUNNING, owner=previous, values={'hostname': host}):
            return False
        # updated_at keeps telling when each began (see recovery).
        transitions.write(session, Action,
                          [Action.action_plan_id == plan_id], stamp=False)
    return True
