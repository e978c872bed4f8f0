"""The recovery of host notifications, as the decision engines run it.

A notification's recovery is owned work (service/ownership.py): the engine
that moves it from new to running stamps itself as its ``hostname``, and
in the same transaction creates the attempt's recovery audit (an event
audit of the strategy of its type, host_recovery for a host, triggered
at once, whose plan starts itself), so that an engine that dies between
the two leaves neither. The engine then follows the attempt until it
ends, and moves the notification to finished, or to error and, after its
last attempt, to failed. Every move is a compare-and-swap on the state
machine and on the owner.
"""


import sqlalchemy as sa
from oslo_utils import uuidutils

from watcher_ha.common.app_failover import members
from watcher_ha.common.instance_ha import attempts
from watcher_ha.common.instance_ha import statuses
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import transitions

Notification = models.HostNotification
Audit = models.Audit

GOAL = 'cluster_maintaining'
# The strategy recovering each type of notification.
STRATEGIES = {statuses.COMPUTE_HOST: 'host_recovery',
              statuses.VM: 'instance_recovery',
              statuses.PROCESS: 'process_recovery'}
# What a recovery's owner runs: a notification in these states is held.
HELD = (statuses.RUNNING, statuses.ERROR)


class LostOwnership(Exception):
    """The notification is no longer this engine's to move."""


def unclaimed(context, grace_seconds, limit=50):
    """Notifications waiting for an engine for ``grace_seconds``: new
    ones, and those an engine handed back when it stopped."""
    return query.left_alone(context, Notification, grace_seconds, [
        Notification.hostname.is_(None),
        Notification.state.in_((statuses.NEW,) + HELD)], limit)


def held(context):
    """(uuid, owner, needs_owner) of every notification an engine holds:
    ``needs_owner`` if its owner has a step to take now (it is in error,
    or its attempt is over or waits for preempted plans:
    common/instance_ha/attempts.py), rather than a message to wait
    for."""
    with engine.reader.connection.using(context) as conn:
        rows = conn.execute(_attempts_query().where(
            Notification.state.in_(HELD),
            Notification.hostname.is_not(None))
            .order_by(Notification.id)).mappings().all()
    return [(row['uuid'], row['hostname'],
             row['state'] != statuses.RUNNING
             or attempts.needs_owner(_attempt_of(row)))
            for row in rows]


def to_tell(context, plan_uuid=None, audit_uuid=None):
    """(uuid, owner) of the running notifications whose owner has a step
    to take now that the plan ``plan_uuid`` or the audit ``audit_uuid``
    ended: the notification whose attempt it was, and, for a plan, those
    whose recovery plan waits for preempted plans (the end of any plan
    may free what they wait for). Read after the commit that ended it."""
    with engine.reader.connection.using(context) as conn:
        if plan_uuid is not None:
            audit_uuid = conn.execute(
                sa.select(Audit.uuid)
                .join(models.ActionPlan,
                      models.ActionPlan.audit_id == Audit.id)
                .where(models.ActionPlan.uuid == plan_uuid)).scalar()
        concerned = []
        if audit_uuid is not None:
            concerned.append(Notification.recovery_audit_uuid == audit_uuid)
        if plan_uuid is not None:
            concerned.append(_newest_plan(models.ActionPlan.state)
                             == ActionPlanState.RECOMMENDED)
        if not concerned:
            return []
        rows = conn.execute(_attempts_query().where(
            Notification.state == statuses.RUNNING,
            sa.or_(*concerned)).order_by(Notification.id)
        ).mappings().all()
    return [(row['uuid'], row['hostname']) for row in rows
            if attempts.needs_owner(_attempt_of(row))]


def _newest_plan(column):
    """``column`` of the newest plan of the notification's recovery audit
    (joined as Audit), as a scalar subquery."""
    Plan = models.ActionPlan
    return (sa.select(column).where(Plan.audit_id == Audit.id)
            .order_by(Plan.id.desc()).limit(1)
            .correlate(Audit).scalar_subquery())


def _attempts_query():
    """Notifications with where their latest attempt stands (the audit
    and its newest plan, each state None if missing)."""
    Plan = models.ActionPlan
    return (sa.select(
        Notification.uuid.label('uuid'),
        Notification.hostname.label('hostname'),
        Notification.state.label('state'), Audit.id.label('audit_id'),
        Audit.state.label('audit_state'),
        Audit.status_message.label('audit_message'),
        _newest_plan(Plan.state).label('plan_state'))
        .select_from(Notification)
        .outerjoin(Audit, Audit.uuid == Notification.recovery_audit_uuid))


def _attempt_of(row):
    """The attempt as attempts.py reads it, from an _attempts_query row
    (the plan's message is not needed to tell whether it needs its
    owner)."""
    if row['audit_id'] is None:
        return None
    return {'state': row['audit_state'],
            'status_message': row['audit_message'],
            'plan': None if row['plan_state'] is None else {
                'state': row['plan_state'], 'status_message': None}}


@engine.retry_on_deadlock
def ignore(context, uuid, host, message):
    """new -> ignored: nothing to recover."""
    with engine.writer.using(context) as session:
        return bool(transitions.write(
            session, Notification, [Notification.uuid == uuid],
            target=statuses.IGNORED, owner=None,
            values={'message': message}))


@engine.retry_on_deadlock
def start_attempt(context, row, host, parameters, strategy):
    """Move the notification ``row`` (new, or error to try again) to
    running, owned by ``host``, with a new recovery audit of
    ``strategy`` (that of the notification's type, STRATEGIES) and
    ``parameters``; the audit's UUID, or None if someone else moved it.
    A notification in error must be ``host``'s already."""
    audit_uuid = uuidutils.generate_uuid()
    now = models.utcnow()
    with engine.writer.using(context) as session:
        ids = dict(session.execute(sa.select(
            models.Strategy.name, models.Strategy.id).where(
                models.Strategy.name == strategy)).all())
        goal_id = session.execute(sa.select(models.Goal.id).where(
            models.Goal.name == GOAL)).scalar()
        if strategy not in ids or goal_id is None:
            raise LookupError('the %s strategy is not in the catalog: is '
                              'watcher_ha installed whole on this engine?'
                              % strategy)
        owner = None if row['state'] == statuses.NEW else host
        moved = transitions.write(
            session, Notification, [Notification.id == row['id']],
            target=statuses.RUNNING, owner=owner, version=row['version'],
            values={'hostname': host, 'recovery_audit_uuid': audit_uuid,
                    'attempts': row['attempts'] + 1, 'message': None})
        if not moved:
            return None
        session.execute(sa.insert(Audit).values(
            uuid=audit_uuid, state=AuditState.PENDING,
            name='recovery-%s-%d' % (row['uuid'], row['attempts'] + 1),
            audit_type=AuditType.EVENT, parameters=parameters, scope=[],
            goal_id=goal_id, strategy_id=ids[strategy], auto_trigger=True,
            # Triggered now, as by its webhook.
            next_run_time=now, webhook_triggered_at=now))
    return audit_uuid


@engine.retry_on_deadlock
def end_attempt(context, uuid, host, target, message=None, then=None):
    """running -> finished or error, or error -> failed, while ``host``
    owns the notification; LostOwnership if it does not. ``then(context)``
    (if given) runs in the same transaction once the move is made: what
    must be written with it or not at all."""
    with engine.writer.using(context) as session:
        moved = transitions.write(
            session, Notification, [Notification.uuid == uuid],
            target=target, owner=host,
            values={'message': message,
                    # Over for good: nobody holds it any more.
                    **({'hostname': None} if target in (
                        statuses.FINISHED, statuses.FAILED) else {})})
        if not moved:
            raise LostOwnership(uuid)
        if then is not None:
            then(context)


def owns(context, uuid, host):
    """Whether ``host`` holds the notification ``uuid`` now."""
    with engine.reader.connection.using(context) as conn:
        return conn.execute(sa.select(sa.exists().where(
            Notification.uuid == uuid, Notification.hostname == host,
            Notification.state.in_(HELD)))).scalar()


@engine.retry_on_deadlock
def change_owner(context, uuid, previous, new):
    """Move a held notification from ``previous`` (None: nobody) to
    ``new``; True if this call did it."""
    with engine.writer.using(context) as session:
        return bool(transitions.write(
            session, Notification, [Notification.uuid == uuid],
            states=HELD, owner=previous, values={'hostname': new}))


@engine.retry_on_deadlock
def release(context, host):
    """Hand back every notification ``host`` holds; how many."""
    with engine.writer.using(context) as session:
        return transitions.write(
            session, Notification, [], states=HELD, owner=host,
            values={'hostname': None})


def attempt(context, audit_uuid):
    """Where the recovery audit ``audit_uuid`` stands: {state, hostname,
    status_message, plan: {uuid, state, status_message, created_at} or
    None}, its newest plan; None if the audit is gone."""
    with engine.reader.connection.using(context) as conn:
        audit = conn.execute(sa.select(
            Audit.id, Audit.state, Audit.hostname, Audit.status_message)
            .where(Audit.uuid == audit_uuid)).mappings().first()
        if audit is None:
            return None
        plan = conn.execute(sa.select(
            models.ActionPlan.uuid, models.ActionPlan.state,
            models.ActionPlan.status_message, models.ActionPlan.created_at)
            .where(models.ActionPlan.audit_id == audit['id'])
            .order_by(models.ActionPlan.id.desc())).mappings().first()
    found = dict(audit)
    found['plan'] = None if plan is None else dict(plan)
    return found


def host_name(context, host_uuid):
    with engine.reader.using(context) as session:
        name = session.execute(sa.select(models.SegmentHost.name).where(
            models.SegmentHost.uuid == host_uuid)).scalar()
    if name is None:
        raise LookupError('host %s is no longer in a failover segment'
                          % host_uuid)
    return name


# Masakari's task states, for the actions of a recovery plan.
TASK_STATES = {'PENDING': 'PENDING', 'ONGOING': 'RUNNING',
               'SUCCEEDED': 'SUCCESS', 'FAILED': 'FAILURE',
               'CANCELLING': 'REVERTING', 'CANCELLED': 'REVERTED',
               'SKIPPED': 'IGNORE'}
_WORST_FIRST = ('FAILURE', 'REVERTING', 'REVERTED', 'RUNNING', 'PENDING',
                'IGNORE', 'SUCCESS')


def workflow_details(context, notification):
    """The steps of the notification's latest recovery attempt, as
    Masakari's ``recovery_workflow_details`` (API 1.1): one per kind of
    action of its plan, in plan order, with its progress (the share of
    its actions done), its state, and the actions' messages."""
    audit_uuid = notification['recovery_audit_uuid']
    if audit_uuid is None:
        return []
    Action = models.Action
    Plan = models.ActionPlan
    with engine.reader.connection.using(context) as conn:
        rows = conn.execute(
            sa.select(Action.action_type, Action.state,
                      Action.status_message, Action.updated_at,
                      Action.created_at)
            .join(Plan, Action.action_plan_id == Plan.id)
            .join(Audit, Plan.audit_id == Audit.id)
            .where(Audit.uuid == audit_uuid)
            .order_by(Plan.id, Action.id)).all()
    steps = {}
    for row in rows:
        steps.setdefault(row.action_type, []).append(row)
    details = []
    for name, actions in steps.items():
        states = [TASK_STATES.get(a.state, a.state) for a in actions]
        done = sum(1 for s in states if s in ('SUCCESS', 'IGNORE'))
        progress = round(done / len(actions), 2)
        details.append({
            'name': name, 'progress': progress,
            'state': min(states, key=_WORST_FIRST.index),
            'progress_details': [
                {'timestamp': (a.updated_at or a.created_at).strftime(
                    '%Y-%m-%d %H:%M:%S.%f'),
                 'progress': 1.0 if TASK_STATES.get(a.state) == 'SUCCESS'
                 else 0.0,
                 'message': a.status_message or '%s %s' % (
                     name, a.state.lower())}
                for a in actions]})
    return details


def hosts_in_recovery(context):
    """The names of the hosts a COMPUTE_HOST notification reports failed
    and whose recovery has not ended (new, running, in error): failed,
    whatever Nova shows yet (its service_down_time may not have passed
    since the monitor saw the host stop)."""
    with engine.reader.connection.using(context) as conn:
        return set(conn.execute(
            sa.select(models.SegmentHost.name)
            .join(Notification, Notification.source_host_uuid
                  == models.SegmentHost.uuid)
            .where(Notification.type == statuses.COMPUTE_HOST,
                   Notification.state.in_(statuses.IN_RECOVERY)))
            .scalars())


def failures_given_up(context, since=None):
    """[Report] (common/app_failover/members.py) of the failures instance
    HA gave up on that ended after ``since`` (naive UTC; None: all): the
    VM notifications failed once their restarts were used up, and the
    PROCESS notifications that ended (a monitor reports a process only
    once its own restarts of it are used up; its recovery puts the host
    on maintenance, and starts nothing)."""
    ended_at = sa.func.coalesce(Notification.updated_at,
                                Notification.created_at)
    with engine.reader.connection.using(context) as conn:
        rows = conn.execute(
            sa.select(Notification.uuid.label('uuid'), Notification.type,
                      Notification.payload, ended_at.label('ended_at'),
                      models.SegmentHost.name.label('host'))
            .outerjoin(models.SegmentHost, Notification.source_host_uuid
                       == models.SegmentHost.uuid)
            .where(sa.or_(
                sa.and_(Notification.type == statuses.VM,
                        Notification.state == statuses.FAILED),
                sa.and_(Notification.type == statuses.PROCESS,
                        Notification.state.in_((statuses.FINISHED,
                                                statuses.FAILED)))),
                   ended_at > since if since is not None else sa.true())
        ).all()
    return [members.Report(
        notification=row.uuid, ended_at=row.ended_at,
        server=row.payload.get('instance_uuid')
        if row.type == statuses.VM else None,
        host=row.host if row.type == statuses.PROCESS else None,
        process=row.payload.get('process_name')
        if row.type == statuses.PROCESS else None)
        for row in rows]
