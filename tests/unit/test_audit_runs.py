"""Engine-side audit storage and scheduling."""

import datetime
import logging
import types

import pytest

from tests import factories
from watcher_ha.common import context
from watcher_ha.db import audit_runs
from watcher_ha.decision_engine import auditor
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import state as model_state
from watcher_ha.decision_engine.planner import weight
from watcher_ha.decision_engine import scheduling

T0 = datetime.datetime(2030, 1, 1, 12, 0, 0)


@pytest.mark.parametrize('interval,previous,now,expected', [
    ('60', None, T0, T0 + datetime.timedelta(seconds=60)),
    ('60', T0, T0 + datetime.timedelta(seconds=10),
     T0 + datetime.timedelta(seconds=60)),
    # Late by 50 s (taken over): the cadence would leave 10 s; half an
    # interval is the least.
    ('60', T0, T0 + datetime.timedelta(seconds=50),
     T0 + datetime.timedelta(seconds=80)),
    # Far behind (engine down): one round now, the next half an interval
    # later, none made up.
    ('60', T0, T0 + datetime.timedelta(hours=2),
     T0 + datetime.timedelta(hours=2, seconds=30)),
    ('*/15 * * * *', None, T0 + datetime.timedelta(minutes=1),
     T0 + datetime.timedelta(minutes=15)),
])
def test_next_round(interval, previous, now, expected):
    assert scheduling.next_run(interval, now, previous) == expected


def test_plan_stored_with_indicators_only_by_the_owner(api, db):
    audit = factories.audit(db, state='ONGOING', hostname='engine-1')
    planned = [weight.PlannedAction('11111111-1111-4111-8111-111111111111',
                                    'nop', {'message': 'x'}, [])]
    indicators = [{'name': 'released_compute_nodes_count',
                   'description': 'Nodes freed', 'unit': None,
                   'value': 2.0}]
    efficacy = [{'name': 'released_nodes_ratio', 'description': 'ratio',
                 'unit': '%', 'value': 25.0}]
    with pytest.raises(audit_runs.LostOwnership):
        audit_runs.store_plan(context.admin_context(), audit, 'engine-2',
                              audit['strategy_id'], planned, indicators,
                              efficacy, finish_audit=True)
    plan_uuid, cancelled = audit_runs.store_plan(
        context.admin_context(), audit, 'engine-1', audit['strategy_id'],
        planned, indicators, efficacy, finish_audit=True)
    assert cancelled == []
    shown = api.get('/v1/action_plans/' + plan_uuid).json
    assert shown['state'] == 'RECOMMENDED'
    assert shown['global_efficacy'] == efficacy
    assert shown['efficacy_indicators'] == [
        {'name': 'released_compute_nodes_count', 'description': 'Nodes freed',
         'unit': None, 'value': 2.0}]
    assert api.get('/v1/audits/' + audit['uuid']).json['state'] == \
        'SUCCEEDED'


def test_continuous_audit_past_its_end_time_succeeds(api, db):
    from watcher_ha.decision_engine import auditor
    from watcher_ha.decision_engine import catalog
    audit = factories.audit(
        db, state='ONGOING', hostname='engine-1', audit_type='CONTINUOUS',
        interval='60', end_time=T0 - datetime.timedelta(days=365 * 10))
    runner = auditor.Auditor('engine-1', catalog.Catalog(),
                             weight.WeightPlanner({'nop': 1}, {}))
    runner.run_round(audit['uuid'])
    assert api.get('/v1/audits/' + audit['uuid']).json['state'] == \
        'SUCCEEDED'
    assert api.get('/v1/action_plans?audit_uuid=' + audit['uuid']).json[
        'action_plans'] == []


def _plan_row(db, uuid):
    import sqlalchemy as sa
    from watcher_ha.db import models
    with db.connect() as conn:
        return conn.execute(sa.select(models.ActionPlan).where(
            models.ActionPlan.uuid == uuid)).one()


def test_plans_record_their_round_and_engine_internally(api, db):
    audit = factories.audit(db, state='ONGOING', hostname='engine-1',
                            audit_type='CONTINUOUS', interval='60')
    row = audit_runs.get(context.admin_context(), audit['uuid'])
    first, _ = audit_runs.store_plan(
        context.admin_context(), row, 'engine-1', audit['strategy_id'], [],
        None, [], finish_audit=False, next_run_time=T0)
    # The first round is due when the audit is created.
    stored = _plan_row(db, first)
    assert (stored.audit_round, stored.planned_by) == (
        row['created_at'], 'engine-1')
    row = audit_runs.get(context.admin_context(), audit['uuid'])
    second, _ = audit_runs.store_plan(
        context.admin_context(), row, 'engine-1', audit['strategy_id'], [],
        None, [], finish_audit=False, next_run_time=T0 + T0.resolution)
    assert _plan_row(db, second).audit_round == T0
    shown = api.get('/v1/action_plans/' + second).json
    assert not {'audit_round', 'planned_by'} & set(shown)
    assert api.get('/v1/action_plans?sort_key=audit_round').status == 400
    oneshot = factories.audit(db, state='ONGOING', hostname='engine-2')
    plan, _ = audit_runs.store_plan(
        context.admin_context(), oneshot, 'engine-2', audit['strategy_id'],
        [], None, [], finish_audit=True)
    stored = _plan_row(db, plan)
    assert (stored.audit_round, stored.planned_by) == (None, 'engine-2')


def test_an_audit_logs_which_model_it_plans_on(caplog):
    model = cluster.ClusterModel('compute')
    model.begin_resync()
    model.finish_resync(model_state.ClusterState())
    engine = auditor.Auditor('engine-a', None, None,
                             models=lambda name: model)
    strategy = types.SimpleNamespace(data_models=('compute',))
    with caplog.at_level(logging.INFO):
        found = engine._snapshots('audit-1', strategy)
    assert found == {'compute': model.snapshot()}
    assert ('Audit audit-1 plans on the compute model at generation %d '
            '(resynced ' % model.generation) in caplog.text
