"""Audit pipelines in the database: the operator's changes and the
engines' claims, hand-overs and the one plan each pipeline stores, every
state change a compare-and-swap."""

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from tests import factories
from watcher_ha.common import context
from watcher_ha.common import exception
from watcher_ha.db import audit_pipelines
from watcher_ha.db import models
from watcher_ha.db import pipeline_runs
from watcher_ha.db import purge
from watcher_ha.decision_engine.planner import base as planner_base

CTX = context.admin_context()


def _state(db, uuid):
    with db.connect() as conn:
        return conn.execute(sa.select(
            models.AuditPipeline.state, models.AuditPipeline.hostname,
            models.AuditPipeline.status_message).where(
                models.AuditPipeline.uuid == uuid)).one()


def test_only_a_triggered_pending_pipeline_is_claimed_once(db):
    waiting, _ = factories.audit_pipeline(db, triggered=False)
    assert pipeline_runs.claim(CTX, waiting['uuid'], 'engine-1') is None
    pipeline, stages = factories.audit_pipeline(db)
    row = pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    assert (row['state'], row['hostname']) == ('ONGOING', 'engine-1')
    assert [s['uuid'] for s in row['stages']] == [s['uuid'] for s in stages]
    assert pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-2') is None
    assert _state(db, pipeline['uuid'])[1] == 'engine-1'


def _planned(*types):
    return [planner_base.PlannedAction(
        '1111111%d-1111-4111-8111-111111111111' % i, kind, {}, [])
        for i, kind in enumerate(types)]


def test_the_plan_is_stored_once_by_the_owner_with_its_stages(db):
    pipeline, stages = factories.audit_pipeline(db)
    row = pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    planned = _planned('nop', 'nop')
    stage_ids = {planned[0].uuid: stages[0]['id'],
                 planned[1].uuid: stages[1]['id']}
    indicators = [{'name': 'n', 'description': None, 'unit': None,
                   'value': 1.0},
                  {'name': 'n', 'description': None, 'unit': None,
                   'value': 2.0}]
    with pytest.raises(pipeline_runs.LostOwnership):
        pipeline_runs.store_plan(CTX, row, 'engine-2', planned, stage_ids,
                                 indicators, [])
    stored = pipeline_runs.store_plan(CTX, row, 'engine-1', planned,
                                      stage_ids, indicators, [])
    assert stored.state == 'SUCCEEDED'
    with db.connect() as conn:
        plan = conn.execute(sa.select(models.ActionPlan).where(
            models.ActionPlan.uuid == stored.plan)).one()
        assert (plan.audit_id, plan.audit_pipeline_id, plan.strategy_id,
                plan.state) == (None, pipeline['id'], None, 'RECOMMENDED')
        assert dict(conn.execute(sa.select(
            models.Action.uuid, models.Action.audit_pipeline_stage_id))
            .all()) == stage_ids
        # Indicators of one name from two stages are both kept.
        assert conn.execute(sa.select(models.EfficacyIndicator.value)
                            .order_by(models.EfficacyIndicator.id)
                            ).scalars().all() == [1.0, 2.0]
    with pytest.raises(pipeline_runs.LostOwnership):
        pipeline_runs.store_plan(CTX, row, 'engine-1', planned, {}, [], [])


def test_a_cancel_while_ongoing_is_honoured_instead_of_the_plan(db):
    pipeline, _ = factories.audit_pipeline(db)
    row = pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    assert not pipeline_runs.cancel_requested(CTX, pipeline['uuid'])
    assert audit_pipelines.cancel(CTX, row) == 'ONGOING'
    assert pipeline_runs.cancel_requested(CTX, pipeline['uuid'])
    assert _state(db, pipeline['uuid'])[0] == 'ONGOING'
    stored = pipeline_runs.store_plan(CTX, row, 'engine-1',
                                      _planned('nop'), {}, [], [])
    assert stored == pipeline_runs.Stored(None, 'CANCELLED')
    with db.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            models.ActionPlan)).scalar() == 0


def test_cancel_pending_at_once_and_nothing_that_ended(db):
    pipeline, _ = factories.audit_pipeline(db)
    row = audit_pipelines.get(CTX, pipeline['uuid'])
    assert audit_pipelines.cancel(CTX, row) == 'PENDING'
    assert _state(db, pipeline['uuid'])[0] == 'CANCELLED'
    with pytest.raises(exception.PipelineStateConflict) as err:
        audit_pipelines.cancel(CTX, audit_pipelines.get(CTX,
                                                         pipeline['uuid']))
    assert err.value.code == 409
    assert 'CANCELLED' in err.value.message


def test_delete_archives_ended_pipelines_only(db):
    pending, _ = factories.audit_pipeline(db, name='p')
    with pytest.raises(exception.PipelineStateConflict):
        audit_pipelines.archive(CTX, audit_pipelines.get(CTX, 'p'))
    ended, _ = factories.audit_pipeline(db, state='FAILED', name='q')
    audit_pipelines.archive(CTX, audit_pipelines.get(CTX, 'q'))
    assert _state(db, ended['uuid'])[0] == 'DELETED'
    with pytest.raises(exception.AuditPipelineNotFound):
        audit_pipelines.get(CTX, 'q')
    # Its name is free again.
    factories.audit_pipeline(db, name='q')


def test_update_only_while_pending(db):
    pipeline, stages = factories.audit_pipeline(db, name='a')
    row = audit_pipelines.get(CTX, 'a')
    updated = audit_pipelines.update(
        CTX, row, {'name': 'b', 'auto_trigger': False},
        {stages[1]['id']: {'name': 'second', 'description': 'd'}})
    assert (updated['name'], updated['auto_trigger']) == ('b', False)
    assert [(s['name'], s['description']) for s in updated['stages']] == [
        ('stage-0', None), ('second', 'd')]
    # Stale: read before the update.
    with pytest.raises(exception.PipelineStateConflict):
        audit_pipelines.update(CTX, row, {'name': 'c'}, {})
    pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    with pytest.raises(exception.PipelineStateConflict):
        audit_pipelines.update(CTX, audit_pipelines.get(CTX, 'b'),
                               {'name': 'c'}, {})


def test_trigger_stamps_pending_pipelines(db):
    pipeline, _ = factories.audit_pipeline(db, triggered=False)
    row = audit_pipelines.get(CTX, pipeline['uuid'])
    assert pipeline_runs.unclaimed(CTX, 0) == []
    assert audit_pipelines.trigger(CTX, row)
    assert pipeline_runs.unclaimed(CTX, 0) == [pipeline['uuid']]
    pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    with pytest.raises(exception.PipelineStateConflict):
        audit_pipelines.trigger(CTX, row)


def test_released_pipelines_stay_ongoing_without_owner(db):
    pipeline, _ = factories.audit_pipeline(db)
    pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    assert pipeline_runs.ongoing(CTX) == [(pipeline['uuid'], 'engine-1')]
    assert not pipeline_runs.change_owner(CTX, pipeline['uuid'], 'engine-2',
                                          'engine-3')
    assert pipeline_runs.release(CTX, 'engine-1') == 1
    assert _state(db, pipeline['uuid'])[:2] == ('ONGOING', None)
    assert pipeline_runs.change_owner(CTX, pipeline['uuid'], None,
                                      'engine-2')
    assert not pipeline_runs.change_owner(CTX, pipeline['uuid'], None,
                                          'engine-3')


def test_a_long_failure_message_is_cut_to_the_column(db):
    pipeline, _ = factories.audit_pipeline(db)
    row = pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    pipeline_runs.finish(CTX, row, 'engine-1', 'FAILED', 'x' * 400)
    message = _state(db, pipeline['uuid'])[2]
    assert len(message) == 255 and message.endswith('...')


def test_a_plan_has_an_audit_or_a_pipeline(db):
    pipeline, _ = factories.audit_pipeline(db)
    audit = factories.audit(db)
    for origin in ({}, {'audit_id': audit['id'],
                        'audit_pipeline_id': pipeline['id']}):
        with pytest.raises(db_exc.DBError), db.begin() as conn:
            conn.execute(sa.insert(models.ActionPlan).values(
                uuid='22222222-2222-4222-8222-222222222222', state='PENDING',
                global_efficacy=[], created_at=models.utcnow(), **origin))


def test_purge_removes_archived_pipelines_with_their_stages(db):
    pipeline, _ = factories.audit_pipeline(
        db, state='DELETED', deleted_at=models.utcnow())
    audit = factories.audit(db, state='DELETED', deleted_at=models.utcnow())
    counts = purge.purge(CTX, 0)
    assert (counts['audits'], counts['audit_pipelines']) == (1, 1)
    with db.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            models.AuditPipelineStage)).scalar() == 0
    assert audit
