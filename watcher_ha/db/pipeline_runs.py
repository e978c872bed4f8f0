"""The decision engines' side of audit pipelines: claiming them, handing
them over, ending them and storing the one action plan each produces.

As for audits (db/audit_runs.py): the claim is a compare-and-swap
PENDING -> ONGOING that stamps ``hostname``, and every later write is
conditioned on still being that owner, so an engine that lost its
pipeline (it was presumed dead, paused, cut off) writes nothing, and a
pipeline is planned into one plan however many engines computed it.
An engine that stops hands its pipeline back ONGOING with no owner (the
machine has no way back to PENDING, as the spec writes it): the first
engine whose look finds it takes it over and computes it again.
"""

import dataclasses

import sqlalchemy as sa
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.common import state_machines
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import AuditState
from watcher_ha.db import action_plans
from watcher_ha.db import audit_pipelines
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import transitions

Pipeline = models.AuditPipeline

CANCELLED_MESSAGE = 'cancelled by an operator while it was being planned'


class LostOwnership(exception.Conflict):
    msg_fmt = ('Audit pipeline %(pipeline)s is no longer run by this engine '
               '(%(host)s); its result is dropped.')


def get(context, uuid):
    """The pipeline with its stages, archived or not."""
    return audit_pipelines.with_stages(
        context, [audit_pipelines.get(context, uuid, archived_too=True)])[0]


def request_id(context, uuid):
    with engine.reader.connection.using(context) as conn:
        return conn.execute(sa.select(Pipeline.request_id).where(
            Pipeline.uuid == uuid)).scalar()


def _message(text):
    """``text`` cut to the column (the spec's String(255))."""
    if text is None or len(text) <= models.STATUS_MESSAGE_LEN:
        return text
    return text[:models.STATUS_MESSAGE_LEN - 3] + '...'


def claim(context, uuid, host):
    """PENDING (and triggered) -> ONGOING stamped with ``host``; the row
    with its stages, or None if another engine (or an operator's cancel)
    got there first."""
    try:
        row = audit_pipelines.get(context, uuid, archived_too=True)
    except exception.AuditPipelineNotFound:
        return None
    if row['state'] != AuditState.PENDING or row['triggered_at'] is None:
        return None
    try:
        transitions.transition(
            context, state_machines.AUDIT_PIPELINE, Pipeline, row,
            AuditState.ONGOING, state_machines.SERVICE,
            values={'hostname': host})
    except exception.Conflict:
        return None
    return get(context, uuid)


def unclaimed(context, grace_seconds, limit=50):
    """UUIDs of triggered PENDING pipelines left alone for
    ``grace_seconds`` (their trigger lost)."""
    return query.left_alone(context, Pipeline, grace_seconds, [
        Pipeline.state == AuditState.PENDING,
        Pipeline.triggered_at.is_not(None),
        Pipeline.deleted_at.is_(None)], limit)


def ongoing(context):
    """(uuid, hostname) of every ONGOING pipeline."""
    with engine.reader.connection.using(context) as conn:
        return list(conn.execute(
            sa.select(Pipeline.uuid, Pipeline.hostname).where(
                Pipeline.state == AuditState.ONGOING,
                Pipeline.deleted_at.is_(None)).order_by(Pipeline.id)))


def _ongoing_of(session, uuid, owner, values, also=()):
    return transitions.write(
        session, Pipeline, [Pipeline.uuid == uuid, *also],
        states=(AuditState.ONGOING,), owner=owner, values=values)


@engine.retry_on_deadlock
def change_owner(context, uuid, previous, new):
    """Move an ONGOING pipeline from ``previous`` (a host, or None) to
    ``new``, if ``previous`` still has it: True for the one winner."""
    with engine.writer.using(context) as session:
        return bool(_ongoing_of(session, uuid, previous, {'hostname': new}))


@engine.retry_on_deadlock
def release(context, host):
    """Hand back the ONGOING pipelines of ``host`` (no owner: the others
    take them over at once); how many."""
    with engine.writer.using(context) as session:
        return transitions.write(
            session, Pipeline, [], states=(AuditState.ONGOING,),
            owner=host, values={'hostname': None})


def cancel_requested(context, uuid):
    """Whether an operator asked to cancel the pipeline."""
    with engine.reader.connection.using(context) as conn:
        return conn.execute(sa.select(
            Pipeline.cancel_requested_at.is_not(None)).where(
                Pipeline.uuid == uuid)).scalar() or False


@engine.retry_on_deadlock
def finish(context, row, host, state, status_message=None):
    """ONGOING -> ``state`` if ``host`` still owns the pipeline."""
    with engine.writer.using(context) as session:
        moved = transitions.write(
            session, Pipeline, [Pipeline.id == row['id']], target=state,
            states=(AuditState.ONGOING,), owner=host,
            values={'status_message': _message(status_message)})
    if not moved:
        raise LostOwnership(pipeline=row['uuid'], host=host)


@dataclasses.dataclass(frozen=True)
class Stored:
    """What store_plan did: the plan's UUID (None if the pipeline ended
    CANCELLED instead) and the state the pipeline ended in."""
    plan: str | None
    state: str


@engine.retry_on_deadlock
def store_plan(context, row, host, planned, stage_ids, indicators,
               global_efficacy, status_message=None):
    """Store the pipeline's one action plan (RECOMMENDED; SUCCEEDED if
    empty) with its actions (each with the id of the stage that proposed
    it, ``stage_ids``) and indicators, and end the pipeline SUCCEEDED,
    in one transaction, if ``host`` still owns it and nobody asked to
    cancel it. A pipeline whose cancel was asked for ends CANCELLED
    instead, without a plan. Raises LostOwnership otherwise."""
    plan_uuid = uuidutils.generate_uuid()
    now = models.utcnow()
    with engine.writer.using(context) as session:
        if transitions.write(
                session, Pipeline,
                [Pipeline.id == row['id'],
                 Pipeline.cancel_requested_at.is_(None)],
                target=AuditState.SUCCEEDED, states=(AuditState.ONGOING,),
                owner=host,
                values={'status_message': _message(status_message)}):
            action_plans.insert_plan(
                session, planned, indicators, now, stage_ids=stage_ids,
                uuid=plan_uuid, audit_pipeline_id=row['id'],
                state=(ActionPlanState.RECOMMENDED if planned
                       else ActionPlanState.SUCCEEDED),
                global_efficacy=global_efficacy, planned_by=host,
                request_id=row['request_id'])
            return Stored(plan_uuid, AuditState.SUCCEEDED)
        if transitions.write(
                session, Pipeline, [Pipeline.id == row['id']],
                target=AuditState.CANCELLED, states=(AuditState.ONGOING,),
                owner=host, values={'status_message': CANCELLED_MESSAGE}):
            return Stored(None, AuditState.CANCELLED)
    raise LostOwnership(pipeline=row['uuid'], host=host)
