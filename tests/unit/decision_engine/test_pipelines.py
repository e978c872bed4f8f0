"""Planning an audit pipeline: its stages on the projected model, its
one plan stored once by its owner, cancellation between stages, and
take-over by another engine."""

import sqlalchemy as sa

from tests import factories
from tests import static_metrics
from tests.helpers.pipelines import BALANCE
from tests.helpers.pipelines import cluster_state
from tests.helpers.pipelines import handler
from tests.helpers.pipelines import MAINTAIN
from watcher_ha.common import context
from watcher_ha.db import audit_pipelines
from watcher_ha.db import models
from watcher_ha.db import pipeline_runs
from watcher_ha.decision_engine import pipelines
from watcher_ha.decision_engine import projection
from watcher_ha.decision_engine.solution import ProposedAction

CTX = context.admin_context()
def _plan_of(db, pipeline_id):
    with db.connect() as conn:
        plans = conn.execute(sa.select(models.ActionPlan).where(
            models.ActionPlan.audit_pipeline_id == pipeline_id)).all()
        actions = conn.execute(sa.select(models.Action).order_by(
            models.Action.id)).all() if plans else []
    return plans, actions


def _pipeline_state(uuid):
    row = audit_pipelines.get(CTX, uuid, archived_too=True)
    return row['state'], row['status_message']


def test_stages_cascade_into_one_plan(conf, db):
    pipeline, stages = factories.audit_pipeline(db, stages=(MAINTAIN,
                                                            BALANCE))
    handler(conf).run(pipeline['uuid'])
    assert _pipeline_state(pipeline['uuid'])[0] == 'SUCCEEDED'
    [plan], actions = _plan_of(db, pipeline['id'])
    assert (plan.audit_id, plan.state, plan.planned_by) == (
        None, 'RECOMMENDED', 'engine-1')
    moves = [a.input_parameters for a in actions
             if a.action_type == 'migrate']
    # s1 leaves A (stage 1); the busy B sheds load (stage 2), never onto
    # A, which stage 1 put under maintenance; nobody moves twice.
    assert {m['resource_id'] for m in moves if m['source_node'] == 'A'} \
        == {'s1'}
    assert any(m['source_node'] == 'B' for m in moves)
    assert all(m['destination_node'] != 'A' for m in moves)
    assert len({m['resource_id'] for m in moves}) == len(moves)
    by_stage = {a.audit_pipeline_stage_id for a in actions}
    assert by_stage == {stages[0]['id'], stages[1]['id']}
    # workload_balance's indicators follow host_maintenance's (none).
    with db.connect() as conn:
        names = conn.execute(sa.select(models.EfficacyIndicator.name).where(
            models.EfficacyIndicator.action_plan_id == plan.id)).scalars()
        assert 'instance_migrations_count' in set(names)


def test_later_stages_see_the_projection_and_the_removed_host(conf, db,
                                                                monkeypatch):
    seen = []
    from watcher_ha.decision_engine.strategy import workload_balance
    original = workload_balance.WorkloadBalance.execute

    def spy(self, audit, parameters, models=None, metrics=None):
        seen.append((models['compute'].instance('s1').host,
                     models['compute'].node('A').status,
                     set(self.protected_hosts)))
        return original(self, audit, parameters, models, metrics)
    monkeypatch.setattr(workload_balance.WorkloadBalance, 'execute', spy)
    pipeline, _ = factories.audit_pipeline(db, stages=(MAINTAIN, BALANCE))
    engine = handler(conf)
    live = engine.models('compute').snapshot()
    engine.run(pipeline['uuid'])
    [(host, status, protected)] = seen
    assert host != 'A' and status == 'disabled' and 'A' in protected
    # The live model is untouched: the projection was a copy.
    assert engine.models('compute').snapshot() is live
    assert live.instance('s1').host == 'A'


def test_a_cancel_is_honoured_between_stages(conf, db, monkeypatch):
    pipeline, _ = factories.audit_pipeline(db, stages=(MAINTAIN, BALANCE))
    asked = iter([False, True])
    monkeypatch.setattr(pipeline_runs, 'cancel_requested',
                        lambda context, uuid: next(asked))
    handler(conf).run(pipeline['uuid'])
    assert _pipeline_state(pipeline['uuid']) == (
        'CANCELLED', pipeline_runs.CANCELLED_MESSAGE)
    assert _plan_of(db, pipeline['id'])[0] == []


def test_a_stage_that_fails_fails_the_pipeline_naming_it(conf, db):
    pipeline, _ = factories.audit_pipeline(db, stages=(
        MAINTAIN, ('cluster_maintaining', 'host_maintenance',
                   {'maintenance_node': 'nowhere'})))
    handler(conf).run(pipeline['uuid'])
    state, message = _pipeline_state(pipeline['uuid'])
    assert state == 'FAILED'
    assert message.startswith('stage 2 (stage-1): compute node nowhere is '
                              'not in the data model')
    assert _plan_of(db, pipeline['id'])[0] == []


def test_a_dead_engines_pipeline_is_planned_once_by_its_adopter(conf, db):
    pipeline, _ = factories.audit_pipeline(db, stages=(MAINTAIN, BALANCE))
    dead = handler(conf, 'engine-1')
    row = pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    assert row is not None
    # engine-1 dies before storing; engine-2 adopts and plans it.
    domain = pipelines.Pipelines('engine-2')
    domain.handler = handler(conf, 'engine-2')
    held = domain.held(CTX)
    assert [(h.uuid, h.owner, h.needs_worker) for h in held] == [
        (pipeline['uuid'], 'engine-1', True)]
    assert domain.adopt(CTX, held[0], 'engine-1')
    domain.resume(pipeline['uuid'], 'adopted', 'engine-1')
    [plan], _ = _plan_of(db, pipeline['id'])
    assert plan.planned_by == 'engine-2'
    # engine-1, back from the dead with its computation, stores nothing.
    dead._plan(row)
    assert len(_plan_of(db, pipeline['id'])[0]) == 1


def test_a_handed_back_pipeline_is_taken_over(conf, db):
    pipeline, _ = factories.audit_pipeline(db, stages=(MAINTAIN, BALANCE))
    pipeline_runs.claim(CTX, pipeline['uuid'], 'engine-1')
    pipelines.Pipelines('engine-1').release(CTX)
    handler(conf, 'engine-2').run(pipeline['uuid'])
    assert _pipeline_state(pipeline['uuid'])[0] == 'SUCCEEDED'
    [plan], _ = _plan_of(db, pipeline['id'])
    assert plan.planned_by == 'engine-2'


def test_the_projection_moves_servers_and_removes_hosts():
    made = projection.Projection(cluster_state())
    before = made.state
    made.apply([
        ProposedAction('change_nova_service_state', {
            'resource_id': 'uuid-A', 'resource_name': 'A',
            'state': 'disabled', 'disabled_reason': 'x'}),
        ProposedAction('migrate', {'resource_id': 's1',
                                   'destination_node': 'D'}),
        ProposedAction('stop', {'resource_id': 's5'}),
        ProposedAction('nop', {'message': 'x'})])
    made.apply([ProposedAction('change_node_power_state', {
        'resource_id': 'ironic-C', 'resource_name': 'C', 'state': 'off'})])
    assert before.instance('s1').host == 'A'
    assert made.state.instance('s1').host == 'D'
    assert made.state.instance('s5').state == 'stopped'
    assert made.state.node('A').status == 'disabled'
    assert made.state.node('C').state == 'down'
    assert made.excluded_before(0) == frozenset()
    assert made.excluded_before(1) == {'A'}
    assert made.excluded_before(2) == {'A', 'C'}
    assert made.unsimulated == ['nop']
    # Only what changed is new: the other servers are shared.
    assert made.state.instance('s2') is before.instance('s2')


def test_projected_host_cpu_follows_the_moved_servers():
    made = projection.Projection(cluster_state())
    metrics = projection.ProjectedMetrics([static_metrics.StaticDatasource({
        'host_cpu_usage': {'A': 50.0, 'D': 0.0},
        'instance_cpu_usage': {'s1': 80.0}})], made)
    nodes = [made.state.node('A'), made.state.node('D')]
    assert metrics.hosts('host_cpu_usage', nodes) == {'A': 50.0, 'D': 0.0}
    made.apply([ProposedAction('migrate', {'resource_id': 's1',
                                           'destination_node': 'D'})])
    # s1 uses 80 % of 2 vcpus: 1.6 cores, 10 % of a 16-vcpu host.
    assert metrics.hosts('host_cpu_usage', nodes) == {'A': 40.0, 'D': 10.0}
