"""Planning audit pipelines (watcher-specs audit-pipeline.rst, "Cascade
Execution Mode"): the handler that runs a pipeline's stages on the
projected cloud and stores its one plan, and pipelines as owned work.

A decision engine claims a pipeline (PENDING -> ONGOING, stamped with
its host), then for each stage, in order: checks that nobody asked to
cancel it, runs the stage's strategy on the compute model as the stages
before it leave it (decision_engine/projection.py: the first stage's
is a snapshot of the live model, taken in O(1)), with the hosts earlier
stages removed protected, and projects the stage's solution for the
next. The pipeline planner (planner/pipeline.py) then merges the stages'
solutions into one plan, stored with the pipeline's end in one
transaction that checks the engine still owns the pipeline and nobody
asked to cancel it (db/pipeline_runs.py).

High availability, as for one-shot audits: the pipeline is owned work
(service/ownership.py) of the engine that claimed it. If that engine
dies, another adopts it on the hash ring and plans it again from its
first stage; the dead one stored nothing, so the pipeline has one plan.
An engine that stops hands it back (ONGOING, no owner) to be taken over
at once. Planning has no effect outside the database, so nothing needs
interrupting.
"""

import collections

from oslo_config import cfg
from oslo_log import log

from watcher_ha.common import audit_scope
from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception
from watcher_ha.common import parameters
from watcher_ha.common.states import AuditState
from watcher_ha.db import pipeline_runs
from watcher_ha.db import reserved_hosts
from watcher_ha.decision_engine import auditor
from watcher_ha.decision_engine import loaded_plugins
from watcher_ha.decision_engine import projection as projection_mod
from watcher_ha.decision_engine import strategy_metrics
from watcher_ha.decision_engine.datasources import metrics as audit_metrics
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.model import state as model_state
from watcher_ha.decision_engine.planner import base as planner_base
from watcher_ha.decision_engine.planner import pipeline as pipeline_planner
from watcher_ha.decision_engine.strategy import base as strategy_base
from watcher_ha.notifications import notifier
from watcher_ha.service import ownership

CONF = cfg.CONF
LOG = log.getLogger(__name__)

COMPUTE = 'compute'


class Cancelled(Exception):
    """An operator asked to cancel the pipeline."""


class StageFailed(Exception):
    """A stage cannot be planned; the message says which and why."""


# What a stage's failure may be, besides a bug.
STAGE_ERRORS = (auditor.AuditFailed, strategy_base.StrategyError,
                ValueError, exception.Invalid, loaded_plugins.NotInstalled,
                audit_metrics.MetricUnavailable,
                planner_base.UnplannableAction)


class Handler:
    """Plans pipelines on this engine (``host``)."""

    def __init__(self, host, loaded, planners, models, datasources=()):
        self.host = host
        self.loaded = loaded
        # planner.loader.Planners: the planner of each stage's strategy.
        self.planners = planners
        # name -> ClusterModel (NotFound for a model not kept here).
        self.models = models
        self.datasources = list(datasources)

    @staticmethod
    def _context():
        return watcher_context.admin_context()

    def run(self, uuid):
        """Claim a triggered PENDING pipeline and plan it; one ONGOING
        without an owner (handed back by a stopping engine) is taken
        over. A no-op if another engine has it."""
        context = self._context()
        row = pipeline_runs.claim(context, uuid, self.host)
        if row is None:
            if pipeline_runs.change_owner(context, uuid, None, self.host):
                LOG.info('Audit pipeline %s, handed back, taken by %s',
                         uuid, self.host)
                self.resume(uuid)
            return
        LOG.info('Audit pipeline %s (%d stages) taken by %s', uuid,
                 len(row['stages']), self.host)
        notifier.audit_pipeline('update', uuid, old_state=AuditState.PENDING)
        self._plan(row)

    def resume(self, uuid):
        """A pipeline this engine owns and no job of it plans (taken over,
        left by an error): planned again from its first stage."""
        row = pipeline_runs.get(self._context(), uuid)
        if row['hostname'] != self.host or row['state'] != AuditState.ONGOING:
            return
        LOG.info('Audit pipeline %s is planned again on %s', uuid, self.host)
        self._plan(row)

    def _plan(self, row):
        uuid = row['uuid']
        try:
            projection, stages, indicators, efficacy = self._cascade(row)
            notifier.audit_pipeline('planner.start', uuid)
            planned = pipeline_planner.plan(stages,
                                            projection.excluded_before)
            for action in planned.actions:
                self.loaded.action(action.action_type).validate(
                    action.input_parameters)
        except Cancelled:
            self._finish(row, AuditState.CANCELLED,
                         pipeline_runs.CANCELLED_MESSAGE)
            return
        except (StageFailed, pipeline_planner.PipelinePlanningFailed,
                *STAGE_ERRORS) as err:
            self._failed(row, err)
            return
        except Exception as err:  # noqa: BLE001
            LOG.exception('Audit pipeline %s failed', uuid)
            self._failed(row, err)
            return
        for sentence in planned.removed:
            LOG.info('Audit pipeline %s: %s', uuid, sentence)
        try:
            stored = pipeline_runs.store_plan(
                self._context(), row, self.host, planned.actions,
                planned.stage_of, indicators, efficacy,
                status_message='; '.join(planned.removed) or None)
        except pipeline_runs.LostOwnership as err:
            LOG.info('%s', err)
            return
        notifier.audit_pipeline('planner.end', uuid)
        notifier.audit_pipeline('update', uuid,
                                old_state=AuditState.ONGOING)
        if stored.plan is None:
            LOG.info('Audit pipeline %s cancelled before its plan was '
                     'stored', uuid)
            return
        LOG.info('Audit pipeline %s produced action plan %s with %d '
                 'action(s)', uuid, stored.plan, len(planned.actions))
        notifier.action_plan('create', stored.plan)
        for action in planned.actions:
            notifier.action('create', action.uuid)

    def _strategies(self, row):
        """[(stage, strategy instance, its checked parameters, where)]:
        every stage's, before any runs, so that a stage that cannot run
        fails the pipeline at once."""
        found = []
        for stage in row['stages']:
            where = 'stage %d (%s)' % (stage['position'] + 1,
                                       stage['name'] or stage['uuid'])
            try:
                strategy, _ = auditor.strategy_of(self.loaded, stage)
                checked = parameters.check(strategy.parameters_spec,
                                           stage['parameters'])
            except STAGE_ERRORS as err:
                raise StageFailed('%s: %s' % (where, err))
            found.append((stage, strategy, checked, where))
        return found

    def _cascade(self, row):
        """The stages run in order on the projected cloud: (the
        projection, [Stage for the planner], indicators, global
        efficacy), each list the stages' in stage order, one after the
        other."""
        strategies = self._strategies(row)
        reads_compute = any(COMPUTE in strategy.data_models
                            for _, strategy, _, _ in strategies)
        projection = projection_mod.Projection(
            self._snapshot(COMPUTE) if reads_compute
            else model_state.ClusterState())
        metrics = projection_mod.ProjectedMetrics(self.datasources,
                                                  projection)
        stages, indicators, efficacy = [], [], []
        for stage, strategy, checked, where in strategies:
            if pipeline_runs.cancel_requested(self._context(), row['uuid']):
                raise Cancelled()
            try:
                models = self._models(row['uuid'], where, strategy,
                                      stage['scope'], projection)
                strategy.protected_hosts = reserved_hosts.kept_for_failover(
                    self._context()) | projection.excluded
                solution = self._execute(row, stage, strategy, checked,
                                         models, metrics)
                found, overall = auditor.efficacy_of(strategy, solution)
            except STAGE_ERRORS as err:
                raise StageFailed('%s: %s' % (where, err))
            LOG.info('Audit pipeline %s, %s: strategy %s proposes %d '
                     'action(s)', row['uuid'], where, strategy.name,
                     len(solution.actions))
            indicators += found
            efficacy += overall
            stages.append(pipeline_planner.Stage(
                stage['position'], stage['id'], tuple(solution.actions),
                self.planners.for_strategy(strategy)))
            projection.apply(solution.actions)
        unsimulated = collections.Counter(projection.unsimulated)
        if unsimulated:
            LOG.info('Audit pipeline %s: actions carried without being '
                     'simulated: %s', row['uuid'], dict(unsimulated))
        if pipeline_runs.cancel_requested(self._context(), row['uuid']):
            raise Cancelled()
        return projection, stages, indicators, efficacy

    def _execute(self, row, stage, strategy, checked, models, metrics):
        uuid = row['uuid']
        notifier.audit_pipeline('strategy.start', uuid)
        try:
            with strategy_metrics.timed(strategy.name):
                solution = strategy.execute(
                    {'uuid': uuid, 'name': row['name'],
                     'audit_type': row['audit_type'],
                     'scope': stage['scope'], 'parameters': checked},
                    checked, models=models, metrics=metrics)
        except strategy_base.NothingToDo as why:
            LOG.info('Audit pipeline %s, stage %d: nothing to do: %s', uuid,
                     stage['position'] + 1, why)
            solution = strategy.new_solution()
        except Exception as err:
            notifier.audit_pipeline('strategy.error', uuid, error=err)
            raise
        notifier.audit_pipeline('strategy.end', uuid)
        return solution

    def _models(self, uuid, where, strategy, scope, projection):
        """{name: state} of the models the strategy reads: the compute
        model as projected, narrowed to the stage's scope; the others as
        they are now."""
        scope = audit_scope.check(scope or [])
        return {name: auditor.narrowed(
            'Audit pipeline %s, %s' % (uuid, where), name,
            projection.state if name == COMPUTE else self._snapshot(name),
            scope) for name in strategy.data_models}

    def _snapshot(self, name):
        if self.models is None:
            raise auditor.AuditFailed('this decision engine keeps no data '
                                      'model')
        try:
            return self.models(name).wait_ready(
                CONF.watcher_decision_engine.model_ready_timeout)
        except (exception.NotFound, cluster.ModelNotReady) as err:
            raise auditor.AuditFailed(str(err))

    def _finish(self, row, state, message=None):
        try:
            pipeline_runs.finish(self._context(), row, self.host, state,
                                 message)
        except pipeline_runs.LostOwnership as err:
            LOG.info('%s', err)
            return
        notifier.audit_pipeline('update', row['uuid'],
                                old_state=AuditState.ONGOING)

    def _failed(self, row, err):
        message = str(err)
        LOG.warning('Audit pipeline %s failed: %s', row['uuid'], message)
        notifier.audit_pipeline('planner.error', row['uuid'], error=err)
        self._finish(row, AuditState.FAILED, message)


class Pipelines:
    """Audit pipelines as owned work (ownership.Domain): held while an
    engine plans them."""

    kind = 'audit pipeline'

    def __init__(self, host):
        self.host = host
        self.handler = None

    def unclaimed(self, context):
        return pipeline_runs.unclaimed(
            context, CONF.watcher_decision_engine.pending_grace)

    def held(self, context):
        return [ownership.Held(uuid, owner)
                for uuid, owner in pipeline_runs.ongoing(context)]

    def take(self, uuid):
        self.handler.run(uuid)

    def request_id(self, uuid):
        return pipeline_runs.request_id(self._context(), uuid)

    @staticmethod
    def _context():
        return watcher_context.admin_context()

    def adopt(self, context, held, gone):
        return pipeline_runs.change_owner(context, held.uuid, gone,
                                          self.host)

    def resume(self, uuid, why, previous):
        self.handler.resume(uuid)

    def hand_over(self, context, held, to):
        # Pipelines stay with their engine until it is gone.
        return False

    def interrupt(self, uuids, why=None):
        # Planning stores nothing but its plan, by a compare-and-swap on
        # the owner: a planning that lost its pipeline stores nothing.
        return set()

    def release(self, context):
        released = pipeline_runs.release(context, self.host)
        if released:
            LOG.info('Handed %d audit pipeline(s) back to the other '
                     'engines', released)
