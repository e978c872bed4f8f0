"""Audit pipelines and their stages: SQL for reading, creating, changing,
triggering, cancelling and archiving them (watcher-specs
audit-pipeline.rst).

A pipeline is created PENDING with its stages, each a snapshot of an
audit template. Every change of a pipeline is a compare-and-swap
(db/transitions.py): an operator's change (PUT, start, cancel, delete)
names the state it expects the pipeline in, so that one racing a
decision engine's claim loses cleanly (409) instead of overwriting it.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from watcher_ha.common import exception
from watcher_ha.common import state_machines
from watcher_ha.common.states import AuditState
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import transitions

Pipeline = models.AuditPipeline
Stage = models.AuditPipelineStage
USER = state_machines.USER

VIEW = query.View(
    model=Pipeline,
    not_found=exception.AuditPipelineNotFound,
    not_found_arg='audit_pipeline',
    archivable=True,
    lookup=('uuid', 'name'),
    filters=query.equality_filters(Pipeline,
                                   ('state', 'audit_type', 'execution_mode')),
    internal=query.INTERNAL | {'triggered_at', 'cancel_requested_at'},
)


def get(context, ident, archived_too=False):
    return query.get_row(context, VIEW, ident, archived_too=archived_too)


def stages_of(context, pipeline_ids):
    """{pipeline id: [its stages, in position order]} in one query; each
    stage a dict of its columns with the UUIDs (and names) of its
    template, goal and strategy."""
    found = {pipeline_id: [] for pipeline_id in pipeline_ids}
    if not pipeline_ids:
        return found
    template = sa.alias(models.AuditTemplate.__table__, 'template')
    goal = sa.alias(models.Goal.__table__, 'goal')
    strategy = sa.alias(models.Strategy.__table__, 'strategy')
    stmt = (sa.select(Stage.__table__,
                      template.c.uuid.label('audit_template_uuid'),
                      goal.c.uuid.label('goal_uuid'),
                      goal.c.name.label('goal_name'),
                      strategy.c.uuid.label('strategy_uuid'),
                      strategy.c.name.label('strategy_name'))
            .select_from(Stage.__table__
                         .outerjoin(template, Stage.source_audit_template_id
                                    == template.c.id)
                         .join(goal, Stage.goal_id == goal.c.id)
                         .outerjoin(strategy,
                                    Stage.strategy_id == strategy.c.id))
            .where(Stage.audit_pipeline_id.in_(list(pipeline_ids)))
            .order_by(Stage.audit_pipeline_id, Stage.position))
    with engine.reader.connection.using(context) as conn:
        for row in conn.execute(stmt):
            found[row.audit_pipeline_id].append(dict(row._mapping))
    return found


def with_stages(context, rows):
    """``rows`` (pipelines), each given its ``stages``."""
    stages = stages_of(context, [row['id'] for row in rows])
    for row in rows:
        row['stages'] = stages[row['id']]
    return rows


def _already_exists(name):
    return exception.AlreadyExists(resource='audit pipeline', name=name)


@engine.retry_on_deadlock
def create(context, values, stages):
    """Insert a PENDING pipeline (``values``: its columns) and its
    ``stages`` (their columns, in order; their position is their index)
    in one transaction, recording the request that creates it; 409 if a
    live pipeline has its name. Returns its row with its stages."""
    uuid = uuidutils.generate_uuid()
    now = models.utcnow()
    try:
        with engine.writer.using(context) as session:
            pipeline_id = session.execute(sa.insert(Pipeline).values(
                uuid=uuid, state=AuditState.PENDING, created_at=now,
                request_id=context.request_id, **values)
            ).inserted_primary_key[0]
            session.execute(sa.insert(Stage), [
                dict(stage, uuid=uuidutils.generate_uuid(),
                     audit_pipeline_id=pipeline_id, position=position,
                     created_at=now)
                for position, stage in enumerate(stages)])
    except db_exc.DBDuplicateEntry:
        raise _already_exists(values.get('name'))
    return with_stages(context, [get(context, uuid)])[0]


def _refused(row, reason):
    return exception.PipelineStateConflict(uuid=row['uuid'],
                                           state=row['state'], reason=reason)


@engine.retry_on_deadlock
def update(context, row, values, stage_values):
    """PUT: change the pipeline's ``values`` and each stage's
    (``stage_values``: {stage id: columns}) while it is PENDING and
    nobody changed it since ``row`` was read; 409 otherwise."""
    try:
        with engine.writer.using(context) as session:
            moved = transitions.write(
                session, Pipeline, [Pipeline.id == row['id']],
                states=(AuditState.PENDING,), version=row['version'],
                values=values)
            if moved != 1:
                raise _refused(get(context, row['uuid']),
                               'only a PENDING pipeline may be updated, '
                               'and it changed since it was read')
            for stage_id, columns in stage_values.items():
                session.execute(sa.update(Stage).where(
                    Stage.id == stage_id,
                    Stage.audit_pipeline_id == row['id']).values(
                        updated_at=models.utcnow(), **columns))
    except db_exc.DBDuplicateEntry:
        raise _already_exists(values.get('name'))
    return with_stages(context, [get(context, row['uuid'])])[0]


@engine.retry_on_deadlock
def trigger(context, row):
    """Ask for the pipeline's planning (start, or auto_trigger): stamps
    ``triggered_at`` while it is PENDING; True if it is PENDING and
    triggered now (or was already), else 409."""
    with engine.writer.using(context) as session:
        moved = transitions.write(
            session, Pipeline, [Pipeline.id == row['id']],
            states=(AuditState.PENDING,),
            values={'triggered_at': sa.func.coalesce(
                Pipeline.triggered_at, models.utcnow())})
    if moved != 1:
        raise _refused(get(context, row['uuid']),
                       'only a PENDING pipeline may be started')
    return True


@engine.retry_on_deadlock
def cancel(context, row):
    """A PENDING pipeline ends CANCELLED at once; an ONGOING one records
    the request, which its engine honours between stages or instead of
    storing its plan. Returns the state it was cancelled in; 409 if it
    is in neither."""
    with engine.writer.using(context) as session:
        moved = transitions.write(
            session, Pipeline, [Pipeline.id == row['id']],
            target=AuditState.CANCELLED, actor=USER,
            values={'status_message': 'cancelled by an operator'})
        if moved:
            return AuditState.PENDING
        moved = transitions.write(
            session, Pipeline, [Pipeline.id == row['id']],
            states=(AuditState.ONGOING,),
            values={'cancel_requested_at': sa.func.coalesce(
                Pipeline.cancel_requested_at, models.utcnow())})
    if moved != 1:
        raise _refused(get(context, row['uuid']),
                       'only a PENDING or ONGOING pipeline may be '
                       'cancelled')
    return AuditState.ONGOING


@engine.retry_on_deadlock
def archive(context, row):
    """DELETE: a SUCCEEDED, FAILED or CANCELLED pipeline moves to
    DELETED (archived, then purged); 409 for one still PENDING or
    ONGOING."""
    with engine.writer.using(context) as session:
        moved = transitions.write(
            session, Pipeline, [Pipeline.id == row['id']],
            target=AuditState.DELETED, actor=USER)
    if moved != 1:
        raise _refused(get(context, row['uuid']),
                       'only a SUCCEEDED, FAILED or CANCELLED pipeline may '
                       'be deleted; cancel it first')
