"""Engine-side audit storage and scheduling."""

import datetime
import logging
import types

import pytest
from oslo_utils import uuidutils

from tests import factories
from watcher_ha.common import context
from watcher_ha.common import scheduling
from watcher_ha.db import audit_runs
from watcher_ha.decision_engine import auditor
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import state as model_state
from watcher_ha.decision_engine.planner import loader
from watcher_ha.decision_engine.planner import weight

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
    audit = audit_runs.get(context.admin_context(), factories.audit(
        db, state='ONGOING', hostname='engine-1')['uuid'])
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
    stored = audit_runs.store_plan(
        context.admin_context(), audit, 'engine-1', audit['strategy_id'],
        planned, indicators, efficacy, finish_audit=True)
    assert (stored.cancelled, stored.started) == ([], False)
    shown = api.get('/v1/action_plans/' + stored.plan).json
    assert shown['state'] == 'RECOMMENDED'
    assert shown['global_efficacy'] == efficacy
    assert shown['efficacy_indicators'] == [
        {'name': 'released_compute_nodes_count', 'description': 'Nodes freed',
         'unit': None, 'value': 2.0}]
    assert api.get('/v1/audits/' + audit['uuid']).json['state'] == \
        'SUCCEEDED'


def test_continuous_audit_past_its_end_time_succeeds(api, db):
    from watcher_ha.decision_engine import auditor
    from watcher_ha.decision_engine import loaded_plugins
    audit = factories.audit(
        db, state='ONGOING', hostname='engine-1', audit_type='CONTINUOUS',
        interval='60', end_time=T0 - datetime.timedelta(days=365 * 10))
    runner = auditor.Auditor('engine-1', loaded_plugins.LoadedPlugins(),
                             loader.Planners(
                                 {'weight': weight.WeightPlanner({'nop': 1},
                                                                 {})}))
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
    first = audit_runs.store_plan(
        context.admin_context(), row, 'engine-1', audit['strategy_id'], [],
        None, [], finish_audit=False, next_run_time=T0)
    # The first round is due when the audit is created.
    stored = _plan_row(db, first.plan)
    assert (stored.audit_round, stored.planned_by) == (
        row['created_at'], 'engine-1')
    row = audit_runs.get(context.admin_context(), audit['uuid'])
    second = audit_runs.store_plan(
        context.admin_context(), row, 'engine-1', audit['strategy_id'], [],
        None, [], finish_audit=False, next_run_time=T0 + T0.resolution)
    assert _plan_row(db, second.plan).audit_round == T0
    shown = api.get('/v1/action_plans/' + second.plan).json
    assert not {'audit_round', 'planned_by'} & set(shown)
    assert api.get('/v1/action_plans?sort_key=audit_round').status == 400
    oneshot = audit_runs.get(context.admin_context(), factories.audit(
        db, state='ONGOING', hostname='engine-2')['uuid'])
    plan = audit_runs.store_plan(
        context.admin_context(), oneshot, 'engine-2', audit['strategy_id'],
        [], None, [], finish_audit=True)
    stored = _plan_row(db, plan.plan)
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


def _runner(host='engine-1'):
    from watcher_ha.decision_engine import auditor
    from watcher_ha.decision_engine import loaded_plugins
    return auditor.Auditor(host, loaded_plugins.LoadedPlugins(),
                           loader.Planners({'weight': weight.WeightPlanner(
                               {'nop': 1, 'sleep': 1}, {})}))


def test_a_one_shot_audit_suspended_then_resumed_runs_again(api, db):
    """Suspended while its engine computed it (the engine's result was
    then refused), then resumed: it is owned by nobody, and the first
    engine to take it computes it again, instead of staying ONGOING for
    ever under an engine that dropped it."""
    audit = factories.audit(db, state='ONGOING', hostname='engine-1')
    for state in ('SUSPENDED', 'ONGOING'):
        resp = api.patch('/v1/audits/' + audit['uuid'], body=[
            {'op': 'replace', 'path': '/state', 'value': state}])
        assert resp.status == 200, resp
    row = audit_runs.get(context.admin_context(), audit['uuid'])
    assert (row['state'], row['hostname']) == ('ONGOING', None)
    _runner('engine-2').run(audit['uuid'])
    shown = api.get('/v1/audits/' + audit['uuid']).json
    assert (shown['state'], shown['hostname']) == ('SUCCEEDED', 'engine-2')
    assert len(api.get('/v1/action_plans?audit_uuid=' + audit['uuid'])
               .json['action_plans']) == 1


@pytest.mark.parametrize('interval', ['0 0 31 2 *', '999999999999'])
def test_a_continuous_audit_that_cannot_be_scheduled_fails_once(
        api, db, interval):
    """Stored before the API checked intervals: its round fails the audit
    with a message, instead of raising every second for ever."""
    audit = factories.audit(db, state='ONGOING', hostname='engine-1',
                            audit_type='CONTINUOUS', interval=interval)
    _runner().run_round(audit['uuid'])
    shown = api.get('/v1/audits/' + audit['uuid'], version='1.5').json
    assert shown['state'] == 'FAILED'
    assert 'cannot be scheduled' in shown['status_message']
    assert repr(interval) in shown['status_message']


def _one_shot_to_store(db):
    return audit_runs.get(context.admin_context(), factories.audit(
        db, state='ONGOING', hostname='engine-1')['uuid'])


MIGRATE_X = [weight.PlannedAction(
    '22222222-2222-4222-8222-222222222222', 'migrate',
    {'resource_id': 'x', 'migration_type': 'live', 'source_node': 'n1'},
    [])]


def test_an_auto_triggered_plan_is_stored_started(api, db):
    """Started in the transaction that stores it, with its claims: no
    crash between storing and starting can leave it unstarted (a one-shot
    audit is SUCCEEDED by then: nothing would look at it again)."""
    audit = _one_shot_to_store(db)
    stored = audit_runs.store_plan(
        context.admin_context(), audit, 'engine-1', audit['strategy_id'],
        MIGRATE_X, None, [], finish_audit=True, start=True)
    assert (stored.started, stored.start_refused) == (True, None)
    shown = api.get('/v1/action_plans/' + stored.plan).json
    assert shown['state'] == 'PENDING'
    other = audit_runs.store_plan(
        context.admin_context(), _one_shot_to_store(db), 'engine-1',
        audit['strategy_id'], [weight.PlannedAction(
            '33333333-3333-4333-8333-333333333333', 'migrate',
            {'resource_id': 'x', 'migration_type': 'live',
             'source_node': 'n1'}, [])], None, [], finish_audit=True,
        start=True)
    assert not other.started


def test_an_auto_trigger_that_cannot_start_says_why(api, db):
    """auto_trigger's start refused (another started plan holds the same
    resources): the plan is stored RECOMMENDED and its status message says
    why, where the refusal used to be swallowed."""
    from watcher_ha.db import action_plans
    holder, _ = factories.action_plan(db, factories.audit(db), kinds=[
        ('migrate', {'resource_id': 'x', 'migration_type': 'live',
                     'source_node': 'n2'})])
    action_plans.transition(context.admin_context(),
                            action_plans.get_plan(context.admin_context(),
                                                  holder['uuid']),
                            'PENDING')
    audit = _one_shot_to_store(db)
    stored = audit_runs.store_plan(
        context.admin_context(), audit, 'engine-1', audit['strategy_id'],
        MIGRATE_X, None, [], finish_audit=True, start=True)
    assert not stored.started
    shown = api.get('/v1/action_plans/' + stored.plan, version='1.5').json
    assert shown['state'] == 'RECOMMENDED'
    assert shown['status_message'] == stored.start_refused
    assert shown['status_message'].startswith(
        'auto_trigger could not start it: ')
    assert holder['uuid'] in shown['status_message']
    assert api.get('/v1/audits/' + audit['uuid']).json['state'] == \
        'SUCCEEDED'


def test_a_strategys_note_is_its_plans_status_message(api, db):
    """A strategy that falls short of its goal says so in its solution's
    note: the plan's status message, after the reason auto_trigger could
    not start it when there is one."""
    def migrate_x():
        return [weight.PlannedAction(
            uuidutils.generate_uuid(), 'migrate',
            {'resource_id': 'x', 'migration_type': 'live',
             'source_node': 'n1'}, [])]

    def stored_with(planned, **options):
        audit = _one_shot_to_store(db)
        stored = audit_runs.store_plan(
            context.admin_context(), audit, 'engine-1',
            audit['strategy_id'], planned, None, [], finish_audit=True,
            **options)
        shown = api.get('/v1/action_plans/' + stored.plan,
                        version='1.5').json
        return stored, shown['state'], shown['status_message']

    assert stored_with(migrate_x(), note='falls short')[1:] == (
        'RECOMMENDED', 'falls short')
    assert stored_with([], note='nothing may go')[1:] == (
        'SUCCEEDED', 'nothing may go')
    assert stored_with(migrate_x(), start=True)[0].started
    refused, state, message = stored_with(migrate_x(), start=True,
                                          note='short')
    assert message == refused.start_refused + '; short'


def test_a_one_shot_result_is_dropped_if_the_audit_changed_meanwhile(db):
    """Suspended and resumed (or edited) while computed: the result read
    from the audit before is stale, and stored by nobody."""
    audit = _one_shot_to_store(db)
    with db.begin() as conn:
        import sqlalchemy as sa
        from watcher_ha.db import models
        conn.execute(sa.update(models.Audit).where(
            models.Audit.id == audit['id']).values(
                version=models.Audit.version + 1))
    with pytest.raises(audit_runs.LostOwnership):
        audit_runs.store_plan(
            context.admin_context(), audit, 'engine-1',
            audit['strategy_id'], [], None, [], finish_audit=True)


def test_plans_later_rounds_replaced_are_archived_after_the_retention(
        api, db):
    """A continuous audit adds a plan per round; those that never ran are
    archived once older than the retention, so that purge removes them.
    A started one stays."""
    import sqlalchemy as sa
    from watcher_ha.db import action_plans
    from watcher_ha.db import models
    audit = factories.audit(db, state='ONGOING', hostname='engine-1',
                            audit_type='CONTINUOUS', interval='60')
    planned = [weight.PlannedAction(
        '1111111%d-1111-4111-8111-111111111111' % i, 'nop',
        {'message': 'x'}, []) for i in range(3)]
    uuids = []
    for index in range(3):
        row = audit_runs.get(context.admin_context(), audit['uuid'])
        uuid = audit_runs.store_plan(
            context.admin_context(), row, 'engine-1', audit['strategy_id'],
            planned[index:index + 1], None, [], finish_audit=False,
            next_run_time=T0 + datetime.timedelta(minutes=index)).plan
        uuids.append(uuid)
    # An empty round, and the second round's plan started by an operator
    # before the third replaced it: it stays.
    row = audit_runs.get(context.admin_context(), audit['uuid'])
    empty = audit_runs.store_plan(
        context.admin_context(), row, 'engine-1', audit['strategy_id'], [],
        None, [], finish_audit=False,
        next_run_time=T0 + T0.resolution).plan
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.uuid == uuids[1]).values(state='FAILED'))
        conn.execute(sa.update(models.Action).where(
            models.Action.uuid == planned[1].uuid).values(state='FAILED'))
    assert action_plans.archive_superseded(context.admin_context(),
                                           3600) == []
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).values(
            updated_at=models.utcnow() - datetime.timedelta(hours=2)))
    archived = action_plans.archive_superseded(context.admin_context(),
                                               3600)
    assert sorted(archived) == sorted([uuids[0], uuids[2], empty])
    listed = {p['uuid'] for p in api.get(
        '/v1/action_plans?audit_uuid=' + audit['uuid']).json[
            'action_plans']}
    assert listed == {uuids[1]}
    from watcher_ha.db import purge
    with db.begin() as conn:
        conn.execute(sa.update(models.ActionPlan).where(
            models.ActionPlan.deleted_at.is_not(None)).values(
                deleted_at=models.utcnow() - datetime.timedelta(days=2)))
        conn.execute(sa.update(models.Action).where(
            models.Action.deleted_at.is_not(None)).values(
                deleted_at=models.utcnow() - datetime.timedelta(days=2)))
    assert purge.purge(context.admin_context(), 1)['action_plans'] == 3


def test_services_silent_past_the_retention_are_forgotten(db):
    from watcher_ha.db import services
    old = models_utcnow() - datetime.timedelta(days=8)
    factories.service(db, host='retired', last_seen_up=old)
    factories.service(db, host='in-group', last_seen_up=old)
    factories.service(db, host='alive')
    gone = services.forget_silent(
        context.admin_context(),
        services.all_services(context.admin_context()), 7 * 24 * 3600,
        {'watcher-ha-decision-engine': {'in-group'}})
    assert [row['host'] for row in gone] == ['retired']
    assert sorted(row['host'] for row in services.all_services(
        context.admin_context())) == ['alive', 'in-group']


def models_utcnow():
    from watcher_ha.db import models
    return models.utcnow()


def test_a_strategy_missing_a_required_indicator_fails_its_audit():
    """As Watcher: a strategy that gives some of its goal's indicators
    must give every one the goal requires; one that gives none is left
    alone."""
    from watcher_ha.common import plugins
    from watcher_ha.decision_engine import solution as solution_mod
    goal = plugins.load_classes(plugins.GOALS)['server_consolidation']
    strategy = types.SimpleNamespace(name='partial')
    solution = solution_mod.Solution('partial', goal)
    assert auditor.efficacy_of(strategy, solution)[0] == []
    solution.set_indicator('instance_migrations_count', 3)
    with pytest.raises(auditor.AuditFailed,
                       match='compute_nodes_count, '
                             'released_compute_nodes_count'):
        auditor.efficacy_of(strategy, solution)
    solution.set_indicator('compute_nodes_count', 4)
    solution.set_indicator('released_compute_nodes_count', 1)
    indicators, efficacy = auditor.efficacy_of(strategy, solution)
    assert [i['name'] for i in indicators] == [
        'compute_nodes_count', 'released_compute_nodes_count',
        'instance_migrations_count']
    assert efficacy[0]['name'] == 'released_nodes_ratio'
    assert efficacy[0]['value'] == 25.0
