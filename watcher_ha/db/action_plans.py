"""Action plans and their actions: SQL for reading and state changes."""

import datetime

import sqlalchemy as sa
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.common import holds
from watcher_ha.common import plugins
from watcher_ha.common import state_machines
from watcher_ha.common import states
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import engine
from watcher_ha.db import goals
from watcher_ha.db import models
from watcher_ha.db import plan_holds
from watcher_ha.db import query
from watcher_ha.db import transitions

ActionPlan = models.ActionPlan
Action = models.Action
Audit = models.Audit
Strategy = models.Strategy

# A filter no query parameter names: the plans made by audits, the only
# ones an API version before audit pipelines shows.
OF_AUDITS = 'of_audits'

PLAN_VIEW = query.View(
    model=ActionPlan,
    not_found=exception.ActionPlanNotFound, not_found_arg='action_plan',
    # An audit or an audit pipeline made the plan: one of the two is NULL.
    references=(query.Reference('audit_id', Audit, {'audit_uuid': 'uuid'},
                                optional=True),
                goals.STRATEGY_REFERENCE,
                query.Reference('audit_pipeline_id', models.AuditPipeline,
                                {'audit_pipeline_uuid': 'uuid'},
                                optional=True)),
    archivable=True,
    filters={'audit_uuid': query.refers_to(ActionPlan.audit_id, Audit),
             'strategy': query.refers_to(ActionPlan.strategy_id, Strategy),
             'audit_pipeline_uuid': query.refers_to(
                 ActionPlan.audit_pipeline_id, models.AuditPipeline),
             OF_AUDITS: lambda value: ActionPlan.audit_id.is_not(None)},
)


def _actions_of_audit(audit_uuid):
    return Action.action_plan_id.in_(
        sa.select(ActionPlan.id).join(Audit, ActionPlan.audit_id == Audit.id)
        .where(Audit.uuid == audit_uuid))


ACTION_VIEW = query.View(
    model=Action,
    not_found=exception.ActionNotFound, not_found_arg='action',
    references=(query.Reference('action_plan_id', ActionPlan,
                                {'action_plan_uuid': 'uuid'}),),
    archivable=True,
    filters={'action_plan_uuid': query.refers_to(Action.action_plan_id,
                                                 ActionPlan),
             'audit_uuid': _actions_of_audit},
)


def insert_plan(session, planned, indicators, now, stage_ids=None,
                **values):
    """Insert an action plan (its columns: ``values``), its actions
    (``planned``: PlannedActions, PENDING) and its efficacy indicators,
    in the caller's transaction; the plan's id. ``stage_ids``: {action
    uuid: the id of the pipeline stage that proposed it}."""
    stage_ids = stage_ids or {}
    plan_id = session.execute(sa.insert(ActionPlan).values(
        created_at=now, **values)).inserted_primary_key[0]
    if planned:
        session.execute(sa.insert(Action), [
            dict(uuid=action.uuid, action_plan_id=plan_id,
                 action_type=action.action_type,
                 input_parameters=action.input_parameters,
                 state=ActionState.PENDING, parents=action.parents,
                 audit_pipeline_stage_id=stage_ids.get(action.uuid),
                 created_at=now)
            for action in planned])
    if indicators:
        session.execute(sa.insert(models.EfficacyIndicator), [
            dict(uuid=uuidutils.generate_uuid(), action_plan_id=plan_id,
                 created_at=now, **indicator)
            for indicator in indicators])
    return plan_id


def get_plan(context, uuid):
    return query.get_row(context, PLAN_VIEW, uuid)


def get_projectable(context, uuid):
    """The plan ``uuid`` if a what-if may project it (not started:
    states.WHAT_IF_STATES); its 404, or PlanNotProjectable (409)."""
    plan = get_plan(context, uuid)
    if plan['state'] not in states.WHAT_IF_STATES:
        raise exception.PlanNotProjectable(
            plan=plan['uuid'], state=plan['state'],
            allowed=', '.join(states.WHAT_IF_STATES))
    return plan


def get_action(context, uuid):
    return query.get_row(context, ACTION_VIEW, uuid)


def action_uuids_in(context, plan_uuid, state):
    """UUIDs of the actions of plan ``plan_uuid`` in ``state``."""
    with engine.reader.connection.using(context) as conn:
        return list(conn.execute(sa.select(Action.uuid).join(
            ActionPlan, Action.action_plan_id == ActionPlan.id).where(
                ActionPlan.uuid == plan_uuid, Action.state == state)
            .order_by(Action.id)).scalars())


def indicators_of(context, plan_ids):
    """{action plan id: [efficacy indicator dicts]} in one query."""
    result = {plan_id: [] for plan_id in plan_ids}
    if not plan_ids:
        return result
    indicator = models.EfficacyIndicator
    with engine.reader.using(context) as session:
        rows = session.execute(
            sa.select(indicator.action_plan_id, indicator.name,
                      indicator.description, indicator.unit,
                      indicator.value)
            .where(indicator.action_plan_id.in_(plan_ids))
            .order_by(indicator.id))
        for row in rows:
            result[row.action_plan_id].append({
                'name': row.name, 'description': row.description,
                'unit': row.unit, 'value': row.value})
    return result


def _move_actions(session, plan_id, target):
    """Move every action of the plan that may go to ``target`` there;
    returns the moved ones as (uuid, state before)."""
    sources = state_machines.ACTION.sources_of(target,
                                               state_machines.SERVICE)
    moved = session.execute(sa.select(Action.uuid, Action.state).where(
        Action.action_plan_id == plan_id, Action.state.in_(sources))).all()
    transitions.write(session, Action, [Action.action_plan_id == plan_id],
                      target=target)
    return [(uuid, state) for uuid, state in moved]


# An interrupted action of a plan cancelled before any applier checked it.
UNCHECKED = ('interrupted when its applier stopped, and its plan was '
             'cancelled before another applier could check its effect in '
             'the cloud: look at the cloud')


def _fail_interrupted(session, plan_id):
    """A plan cancelled while handed back (PENDING) may hold actions its
    applier interrupted as it stopped: their effect is unknown (a
    migration Nova may have finished), so they end FAILED, saying so,
    rather than CANCELLED. Returns them as (uuid, state before)."""
    where = (Action.action_plan_id == plan_id,
             Action.state == ActionState.ONGOING)
    moved = [(uuid, ActionState.ONGOING) for uuid in session.execute(
        sa.select(Action.uuid).where(*where)).scalars()]
    if moved:
        transitions.write(session, Action, list(where),
                          target=ActionState.FAILED,
                          values={'status_message': UNCHECKED})
    return moved


# Actions follow their plan when it is cancelled or archived by a user.
_ACTIONS_FOLLOW = {
    ActionPlanState.CANCELLED: ActionState.CANCELLED,
    ActionPlanState.DELETED: ActionState.DELETED,
}


# A plan in these states is over: it holds no resource any more.
ENDED = (ActionPlanState.SUCCEEDED, ActionPlanState.FAILED,
         ActionPlanState.CANCELLED, ActionPlanState.SUPERSEDED,
         ActionPlanState.DELETED)


def resources_of(actions):
    """What ``actions`` (rows: action_type, input_parameters) act on, as
    their plugins declare it."""
    return holds.resources_of(actions, plugins.load_classes(plugins.ACTIONS))


def _resources(session, plan_id):
    """What the plan's actions that will run act on."""
    actions = session.execute(
        sa.select(Action.action_type, Action.input_parameters).where(
            Action.action_plan_id == plan_id,
            Action.deleted_at.is_(None),
            Action.state != ActionState.SKIPPED))
    return resources_of({'action_type': a.action_type,
                         'input_parameters': a.input_parameters}
                        for a in actions)


def holders(context, row):
    """The other started plans that hold what the plan ``row``'s actions
    act on: [{uuid, state, recovery}], ``recovery`` if the plan is an
    instance-HA recovery's (its audit is a notification's attempt)."""
    Hold = models.PlanHold
    Notification = models.HostNotification
    with engine.reader.using(context) as session:
        wanted = _resources(session, row['id'])
        if not wanted:
            return []
        recovery = sa.exists().where(
            Notification.recovery_audit_uuid == Audit.uuid)
        found = session.execute(
            sa.select(ActionPlan.uuid, ActionPlan.state,
                      recovery.label('recovery'))
            .join(Hold, Hold.action_plan_id == ActionPlan.id)
            .join(Audit, ActionPlan.audit_id == Audit.id)
            .where(sa.tuple_(Hold.resource_type, Hold.resource_id).in_(
                sorted(wanted)), ActionPlan.id != row['id'])
            .distinct().order_by(ActionPlan.uuid)).mappings().all()
    return [dict(r) for r in found]


def transition(context, row, target, actor=state_machines.USER):
    """Move the plan to ``target`` (compare-and-swap), with its actions
    where they follow it, in one transaction. Starting it (PENDING) holds
    every resource its actions touch, or fails with PlanOverlap naming who
    holds what; ending it releases them. Returns the actions that
    followed the plan, as (uuid, state before)."""
    wanted = set()
    return plan_holds.taking_holds(
        context, row['id'], row['uuid'], wanted,
        lambda: _transition(context, row, target, actor, wanted))


@engine.retry_on_deadlock
def _transition(context, row, target, actor, wanted):
    values = {}
    moved = []
    if target == ActionPlanState.DELETED:
        values['deleted_at'] = models.utcnow()
    if target == ActionPlanState.PENDING:
        # The daemons running it log under the request that started it.
        values['request_id'] = context.request_id
    with engine.writer.using(context) as session:
        transitions.compare_and_swap(session, state_machines.ACTION_PLAN,
                                     ActionPlan, row, target, actor, values)
        if target == ActionPlanState.CANCELLED:
            moved = _fail_interrupted(session, row['id'])
        if target in _ACTIONS_FOLLOW:
            moved += _move_actions(session, row['id'],
                                   _ACTIONS_FOLLOW[target])
        if target == ActionPlanState.PENDING:
            wanted.clear()
            wanted.update(_resources(session, row['id']))
            plan_holds.insert(session, row['id'], wanted)
        elif target in ENDED:
            plan_holds.release(session, [row['id']])
    return moved


# A user may only skip actions of a plan that has not started.
SKIPPABLE_PLAN_STATES = (ActionPlanState.RECOMMENDED, ActionPlanState.PENDING)


@engine.retry_on_deadlock
def update_action(context, row, values, new_state=None):
    """Change the action's status message and/or state (compare-and-swap).

    A state change also requires, in the same UPDATE, that the plan has not
    started, so an applier that took the plan meanwhile wins cleanly.
    """
    with engine.writer.using(context) as session:
        if new_state is None or new_state == row['state']:
            transitions.update_fields(session, Action, row, values)
        else:
            plan_not_started = sa.exists().where(
                ActionPlan.id == row['action_plan_id'],
                ActionPlan.state.in_(SKIPPABLE_PLAN_STATES))
            transitions.compare_and_swap(
                session, state_machines.ACTION, Action, row, new_state,
                state_machines.USER, values, also_where=(plan_not_started,))
    return get_action(context, row['uuid'])


# Actions that leave a plan with nothing to show: it never ran any.
_NEVER_RAN = (ActionState.CANCELLED, ActionState.SKIPPED, ActionState.DELETED)


# Why an expired plan is SUPERSEDED.
EXPIRED = ('expired: recommended for more than %d hour(s) and never started '
           '([watcher_decision_engine] action_plan_expiry)')


@engine.retry_on_deadlock
def expire_recommended(context, hours, limit=500):
    """Supersede the plans still RECOMMENDED ``hours`` after they were
    created, each by a compare-and-swap on the version read (an operator
    starting one meanwhile wins). Their actions stay as they are, as in
    Watcher. Returns the UUIDs superseded."""
    cutoff = models.utcnow() - datetime.timedelta(hours=hours)
    superseded = []
    with engine.writer.using(context) as session:
        stale = session.execute(
            sa.select(ActionPlan.id, ActionPlan.uuid, ActionPlan.version)
            .where(ActionPlan.state == ActionPlanState.RECOMMENDED,
                   ActionPlan.deleted_at.is_(None),
                   ActionPlan.created_at < cutoff)
            .order_by(ActionPlan.id).limit(limit)).all()
        for plan in stale:
            if transitions.write(session, ActionPlan,
                                 [ActionPlan.id == plan.id],
                                 target=ActionPlanState.SUPERSEDED,
                                 states=(ActionPlanState.RECOMMENDED,),
                                 version=plan.version,
                                 values={'status_message': EXPIRED % hours}):
                superseded.append(plan.uuid)
    return superseded


@engine.retry_on_deadlock
def archive_superseded(context, retention, limit=500):
    """Archive (DELETED, so that purge removes them) the plans of
    continuous audits' rounds that ended without running an action (a
    later round cancelled them, or they were empty) and did not change for
    ``retention`` seconds. Returns the UUIDs archived."""
    cutoff = models.utcnow() - datetime.timedelta(seconds=retention)
    ran = sa.exists().where(Action.action_plan_id == ActionPlan.id,
                            Action.state.not_in(_NEVER_RAN))
    archived = []
    with engine.writer.using(context) as session:
        stale = session.execute(
            sa.select(ActionPlan.id, ActionPlan.uuid, ActionPlan.version)
            .where(ActionPlan.audit_round.is_not(None),
                   ActionPlan.deleted_at.is_(None),
                   ActionPlan.state.in_((ActionPlanState.CANCELLED,
                                         ActionPlanState.SUCCEEDED,
                                         ActionPlanState.SUPERSEDED)),
                   sa.func.coalesce(ActionPlan.updated_at,
                                    ActionPlan.created_at) < cutoff,
                   ~ran)
            .order_by(ActionPlan.id).limit(limit)).all()
        for plan in stale:
            if transitions.write(session, ActionPlan,
                                 [ActionPlan.id == plan.id],
                                 target=ActionPlanState.DELETED,
                                 version=plan.version):
                _move_actions(session, plan.id, ActionState.DELETED)
                archived.append(plan.uuid)
    return archived


def newest_of_audit(context, audit_uuid):
    """(the newest plan of the audit: {uuid, state, created_at}, its
    actions: [{uuid, action_type, state, input_parameters}] in creation
    order), or (None, [])."""
    with engine.reader.connection.using(context) as conn:
        plan = conn.execute(
            sa.select(ActionPlan.id, ActionPlan.uuid, ActionPlan.state,
                      ActionPlan.created_at)
            .join(Audit, ActionPlan.audit_id == Audit.id)
            .where(Audit.uuid == audit_uuid)
            .order_by(ActionPlan.id.desc()).limit(1)).first()
        if plan is None:
            return None, []
        actions = conn.execute(
            sa.select(Action.uuid, Action.action_type, Action.state,
                      Action.input_parameters)
            .where(Action.action_plan_id == plan.id)
            .order_by(Action.id)).mappings().all()
    return {'uuid': plan.uuid, 'state': plan.state,
            'created_at': plan.created_at}, [dict(a)
                                                      for a in actions]


def count_of_goal_since(context, goal, since, with_action=None):
    """How many action plans of audits of ``goal`` (its name) were made
    after ``since`` (naive UTC); with ``with_action``, only those with an
    action of that type."""
    plans = (sa.select(sa.func.count(ActionPlan.id))
             .join(Audit, ActionPlan.audit_id == Audit.id)
             .join(models.Goal, Audit.goal_id == models.Goal.id)
             .where(models.Goal.name == goal,
                    ActionPlan.created_at > since))
    if with_action is not None:
        plans = plans.where(sa.exists().where(
            Action.action_plan_id == ActionPlan.id,
            Action.action_type == with_action))
    with engine.reader.connection.using(context) as conn:
        return conn.execute(plans).scalar()


def strategy_name(context, uuid):
    """The name of the strategy of plan ``uuid`` (None: no such plan, or
    none recorded)."""
    with engine.reader.connection.using(context) as conn:
        return conn.execute(
            sa.select(models.Strategy.name)
            .join(ActionPlan, ActionPlan.strategy_id == models.Strategy.id)
            .where(ActionPlan.uuid == uuid)).scalar()
