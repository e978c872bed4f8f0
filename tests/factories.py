"""Rows the API cannot create (action plans, actions, services), inserted
with SQL as the daemons will insert them."""

import sqlalchemy as sa
from oslo_utils import uuidutils

from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.common.states import AuditState
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import models


def _goal_and_strategy(conn, goal='dummy', strategy='dummy'):
    goal_id = conn.execute(sa.select(models.Goal.id).where(
        models.Goal.name == goal)).scalar_one()
    strategy_id = conn.execute(sa.select(models.Strategy.id).where(
        models.Strategy.name == strategy)).scalar_one()
    return goal_id, strategy_id


def audit(engine, state=AuditState.SUCCEEDED, name=None, goal='dummy',
          strategy='dummy', **values):
    with engine.begin() as conn:
        goal_id, strategy_id = _goal_and_strategy(conn, goal, strategy)
        uuid = uuidutils.generate_uuid()
        row = dict(uuid=uuid, name=name or 'audit-' + uuid[:8],
                   audit_type='ONESHOT', state=state, parameters={},
                   goal_id=goal_id, strategy_id=strategy_id, scope=[],
                   created_at=models.utcnow())
        row.update(values)
        result = conn.execute(sa.insert(models.Audit).values(**row))
        return dict(row, id=result.inserted_primary_key[0])


def action_plan(engine, audit_row, state=ActionPlanState.RECOMMENDED,
                actions=2, indicators=(), kinds=None, hostname=None,
                action_states=None, created_at=None):
    """A plan with ``actions`` chained nop actions, or the actions
    ``kinds`` lists as (action_type, input_parameters), in
    ``action_states`` (PENDING by default), run by ``hostname``; returns
    (plan, actions)."""
    kinds = kinds or [('nop', {'message': 'step %d' % index})
                      for index in range(actions)]
    action_states = action_states or [ActionState.PENDING] * len(kinds)
    with engine.begin() as conn:
        uuid = uuidutils.generate_uuid()
        plan = dict(uuid=uuid, audit_id=audit_row['id'],
                    strategy_id=audit_row['strategy_id'], state=state,
                    hostname=hostname, global_efficacy=[],
                    created_at=created_at or models.utcnow())
        plan['id'] = conn.execute(sa.insert(models.ActionPlan).values(
            **plan)).inserted_primary_key[0]
        created, parent = [], None
        for (action_type, parameters), action_state in zip(kinds,
                                                           action_states):
            action = dict(uuid=uuidutils.generate_uuid(),
                          action_plan_id=plan['id'], action_type=action_type,
                          input_parameters=parameters, state=action_state,
                          parents=[parent] if parent else [],
                          created_at=models.utcnow())
            action['id'] = conn.execute(sa.insert(models.Action).values(
                **action)).inserted_primary_key[0]
            created.append(action)
            parent = action['uuid']
        for name, value in indicators:
            conn.execute(sa.insert(models.EfficacyIndicator).values(
                uuid=uuidutils.generate_uuid(), action_plan_id=plan['id'],
                name=name, description='%s indicator' % name, unit=None,
                value=value, created_at=models.utcnow()))
        return plan, created


def service(engine, name='watcher-ha-decision-engine', host='controller-1',
            last_seen_up=None):
    with engine.begin() as conn:
        row = dict(name=name, host=host,
                   last_seen_up=last_seen_up or models.utcnow(),
                   created_at=models.utcnow())
        row['id'] = conn.execute(sa.insert(models.Service).values(
            **row)).inserted_primary_key[0]
        return row


def host_notification(context, hostname='failed'):
    """A monitor's report that compute host ``hostname`` (of a segment of
    its own) stopped, as recorded: the notification's row, new."""
    segment = failover_segments.create_segment(context, {
        'name': 'rack-of-%s' % hostname, 'service_type': 'COMPUTE',
        'recovery_method': 'auto'})
    failover_segments.create_host(context, segment['uuid'], {
        'name': hostname, 'type': 'COMPUTE', 'control_attributes': ''})
    return host_notifications.create_notification(context, {
        'type': 'COMPUTE_HOST', 'hostname': hostname,
        'generated_time': models.utcnow(),
        'payload': {'event': 'STOPPED'}}, 0)


def audit_pipeline(engine, stages=(('dummy', 'dummy'), ('dummy', 'dummy')),
                   state=AuditState.PENDING, triggered=True, **values):
    """A ONESHOT cascade pipeline whose stages are (goal, strategy[,
    parameters]), each with scope []; returns (pipeline, stages)."""
    now = models.utcnow()
    with engine.begin() as conn:
        row = dict(uuid=uuidutils.generate_uuid(), execution_mode='cascade',
                   audit_type='ONESHOT', state=state, auto_trigger=True,
                   triggered_at=now if triggered else None, created_at=now)
        row.update(values)
        row['id'] = conn.execute(sa.insert(models.AuditPipeline).values(
            **row)).inserted_primary_key[0]
        made = []
        for position, (goal, strategy, *parameters) in enumerate(stages):
            goal_id, strategy_id = _goal_and_strategy(conn, goal, strategy)
            stage = dict(uuid=uuidutils.generate_uuid(),
                         audit_pipeline_id=row['id'], position=position,
                         name='stage-%d' % position, goal_id=goal_id,
                         strategy_id=strategy_id, scope=[],
                         parameters=parameters[0] if parameters else {},
                         created_at=now)
            stage['id'] = conn.execute(sa.insert(
                models.AuditPipelineStage).values(**stage)
            ).inserted_primary_key[0]
            made.append(stage)
        return row, made
