"""Running an audit: its strategy, the planner, storing the plan.

One-shot and event audits run once per claim. A continuous audit is
claimed once; its rounds then run when due (``run_round``), each closed
with a compare-and-swap on ``next_run_time`` so that no round has two
plans.
"""

import collections

from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier import rpcapi as applier_rpcapi
from watcher_ha.common import audit_scope
from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception
from watcher_ha.common import parameters
from watcher_ha.common import scheduling
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.common.states import AuditState
from watcher_ha.common.states import AuditType
from watcher_ha.db import action_plans
from watcher_ha.db import audit_runs
from watcher_ha.db import models
from watcher_ha.db import reserved_hosts
from watcher_ha.decision_engine import loaded_plugins
from watcher_ha.decision_engine import scope as compute_scope
from watcher_ha.decision_engine import storage_scope
from watcher_ha.decision_engine import strategy_metrics
from watcher_ha.decision_engine.datasources import metrics as audit_metrics
from watcher_ha.decision_engine.model import cluster
from watcher_ha.decision_engine.planner import base as planner_base
from watcher_ha.decision_engine.strategy import base as strategy_base
from watcher_ha.notifications import notifier

CONF = cfg.CONF
LOG = log.getLogger(__name__)


class AuditFailed(Exception):
    """The audit cannot produce a plan; the message says why."""


class Auditor:

    def __init__(self, host, plugins, planners, models=None,
                 refresh_servers=None, datasources=()):
        self.host = host
        # The configured datasources, in order; each audit reads them
        # through its own AuditMetrics (its own cache).
        self.datasources = list(datasources)
        self.loaded = plugins
        # planner.loader.Planners: each strategy's planner.
        self.planners = planners
        # name -> ClusterModel; raises NotFound for a model not kept here.
        self.models = models
        # (model name, hostname) -> None: the host's servers read from
        # the source into the model.
        self.refresh_servers = refresh_servers

    def _context(self):
        return watcher_context.admin_context()

    def run(self, uuid):
        """Claim a PENDING audit and run it (one-shot, event) or start its
        rounds (continuous). An ONGOING audit nobody owns (an operator
        resumed it) is taken too. A no-op if someone else has it."""
        context = self._context()
        row = audit_runs.claim(context, uuid, self.host)
        if row is None:
            if audit_runs.change_owner(context, uuid, None, self.host):
                LOG.info('Audit %s, resumed, taken by %s', uuid, self.host)
                self.resume(uuid)
            return
        LOG.info('Audit %s (%s) taken by %s', uuid, row['audit_type'],
                 self.host)
        notifier.audit('update', uuid, old_state=AuditState.PENDING)
        if row['audit_type'] != AuditType.CONTINUOUS:
            self._execute(row, finish=True)

    def resume(self, uuid):
        """An audit this engine owns and no job of it computes (taken
        over, resumed, or left by an error): a one-shot or event audit is
        computed again from scratch, a continuous one runs its round if
        due."""
        row = audit_runs.get(self._context(), uuid)
        if (row['hostname'] != self.host
                or row['state'] != AuditState.ONGOING):
            return
        if row['audit_type'] == AuditType.CONTINUOUS:
            self.run_round(uuid)
        else:
            LOG.info('Audit %s is computed again on %s', uuid, self.host)
            self._execute(row, finish=True)

    def run_round(self, uuid):
        """The round a continuous audit is due for, if this engine still
        owns it. The round is closed in the same UPDATE that stores its
        plan (or notes its failure): whoever closes it first wins, and a
        round whose engine died before closing it is run again by the
        audit's next owner, so none is skipped or doubled."""
        context = self._context()
        row = audit_runs.get(context, uuid)
        if (row['hostname'] != self.host
                or row['state'] != AuditState.ONGOING):
            return
        now = models.utcnow()
        if row['next_run_time'] and row['next_run_time'] > now:
            return
        if row['end_time'] and now >= row['end_time']:
            self._finish(row, AuditState.SUCCEEDED)
            return
        if row['start_time'] and now < row['start_time']:
            audit_runs.advance_round(context, row, self.host,
                                     row['start_time'])
            return
        try:
            due = scheduling.next_run(row['interval'], now,
                                      row['next_run_time'])
        except scheduling.UnschedulableInterval as err:
            # Accepted before the API checked intervals: it would fail
            # every round, for ever.
            self._finish(row, AuditState.FAILED,
                         'its interval %r cannot be scheduled (%s): create '
                         'the audit again with an interval in seconds or a '
                         'cron expression that runs within the next %d '
                         'years' % (row['interval'], err,
                                    scheduling.MAX_CRON_YEARS))
            return
        self._execute(row, finish=False, next_run_time=due)

    def _finish(self, row, state, message=None):
        try:
            audit_runs.finish(self._context(), row, self.host, state,
                              message)
        except audit_runs.LostOwnership as err:
            LOG.info('%s', err)
            return
        notifier.audit('update', row['uuid'], old_state=AuditState.ONGOING)

    def _strategy(self, row):
        return strategy_of(self.loaded, row)

    def _execute(self, row, finish, next_run_time=None):
        uuid = row['uuid']
        stage = 'strategy'
        try:
            strategy, strategy_id = self._strategy(row)
            # An audit created without a strategy has its parameters
            # checked (and completed) only now that one is chosen.
            checked = parameters.check(strategy.parameters_spec,
                                       row['parameters'])
            self._refresh(uuid, strategy.fresh_hosts(checked))
            snapshots = self._snapshots(uuid, strategy, row['scope'])
            strategy.protected_hosts = reserved_hosts.kept_for_failover(
                self._context())
            notifier.audit('strategy.start', uuid)
            with strategy_metrics.timed(strategy.name):
                solution = strategy.execute(
                    row, checked, models=snapshots,
                    metrics=audit_metrics.AuditMetrics(self.datasources))
            indicators, global_efficacy = efficacy_of(strategy, solution)
            LOG.info('Audit %s: strategy %s proposes %s; %s', uuid,
                     strategy.name, _summary(solution.actions),
                     ', '.join('%s=%s' % (i['name'], i['value'])
                               for i in indicators + global_efficacy)
                     or 'no efficacy indicator')
            notifier.audit('strategy.end', uuid)
            stage = 'planner'
            notifier.audit('planner.start', uuid)
            planned = self.planners.for_strategy(strategy).schedule(
                solution)
            for action in planned:
                self.loaded.action(action.action_type).validate(
                    action.input_parameters)
        except strategy_base.NothingToDo as why:
            self._nothing_to_do(row, why, finish, next_run_time)
            return
        except (AuditFailed, strategy_base.StrategyError, ValueError,
                exception.Invalid, loaded_plugins.NotInstalled,
                audit_metrics.MetricUnavailable,
                planner_base.UnplannableAction) as err:
            self._failed(row, stage, err, finish, next_run_time)
            return
        except Exception as err:  # noqa: BLE001
            LOG.exception('Audit %s failed in its %s', uuid, stage)
            self._failed(row, stage, err, finish, next_run_time)
            return
        try:
            stored = audit_runs.store_plan(
                self._context(), row, self.host, strategy_id, planned,
                indicators, global_efficacy,
                finish_audit=finish, next_run_time=next_run_time,
                start=row['auto_trigger'], note=solution.note)
        except audit_runs.LostOwnership as err:
            LOG.info('%s', err)
            return
        plan_uuid = stored.plan
        LOG.info('Audit %s produced action plan %s with %d action(s)%s',
                 uuid, plan_uuid, len(planned),
                 ': %s' % solution.note if solution.note else '')
        notifier.action_plan('create', plan_uuid)
        if stored.started:
            # auto_trigger: stored started, as the operator would have
            # started it; the applier the launch reaches takes it (or a
            # sweep, if the launch is lost). Launched before the
            # notifications of its actions, a read and a send each: a
            # recovery's hundred evacuations would wait seconds for them.
            notifier.action_plan('update', plan_uuid,
                                 old_state=ActionPlanState.RECOMMENDED)
            applier_rpcapi.ApplierAPI().launch_action_plan(self._context(),
                                                           plan_uuid)
        notifier.audit('planner.end', uuid)
        for action in planned:
            notifier.action('create', action.uuid)
        for stale in stored.cancelled:
            notifier.action_plan('update', stale,
                                 old_state=ActionPlanState.RECOMMENDED)
            # Its actions, never started, were cancelled with it.
            notifier.actions_followed(
                (action, ActionState.PENDING)
                for action in action_plans.action_uuids_in(
                    self._context(), stale, ActionState.CANCELLED))
        if finish:
            notifier.audit('update', uuid, old_state=AuditState.ONGOING)
        if stored.start_refused:
            LOG.warning('Action plan %s: %s', plan_uuid,
                        stored.start_refused)

    def _refresh(self, uuid, hosts):
        """Read the servers of ``hosts`` ({model: hostnames}) from the
        source; a failed read leaves the model as it is, logged."""
        for name, hostnames in hosts.items():
            for hostname in hostnames:
                if self.refresh_servers is None:
                    continue
                try:
                    self.refresh_servers(name, hostname)
                except Exception as err:  # noqa: BLE001
                    LOG.warning('Audit %s: could not read the servers of '
                                '%s from the source (%s); planning on '
                                'the %s model as it is', uuid, hostname,
                                err, name)

    def _snapshots(self, uuid, strategy, scope=None):
        """{name: snapshot} of the models the strategy reads, waiting up
        to model_ready_timeout for any not built yet, each narrowed to
        the audit's ``scope``; what each one is (generation, ages) goes
        to the log."""
        scope = audit_scope.check(scope or [])
        found = {}
        for name in strategy.data_models:
            if self.models is None:
                raise AuditFailed('this decision engine keeps no data '
                                  'model')
            try:
                model = self.models(name)
                found[name] = model.wait_ready(
                    CONF.watcher_decision_engine.model_ready_timeout)
            except (exception.NotFound, cluster.ModelNotReady) as err:
                raise AuditFailed(str(err))
            info = model.info()
            LOG.info('Audit %s plans on the %s model at generation %d '
                     '(resynced %s s ago, last notification %s s ago)',
                     uuid, name, found[name].generation,
                     info['seconds_since_resync'],
                     info['seconds_since_notification'])
            found[name] = narrowed('Audit %s' % uuid, name, found[name],
                                   scope)
        return found

    def _nothing_to_do(self, row, why, finish, next_run_time=None):
        LOG.info('Audit %s: nothing to do: %s', row['uuid'], why)
        notifier.audit('strategy.end', row['uuid'])
        if finish:
            self._finish(row, AuditState.SUCCEEDED, 'nothing to do: %s'
                         % why)
        else:
            audit_runs.advance_round(self._context(), row, self.host,
                                     next_run_time)

    def _failed(self, row, stage, err, finish, next_run_time=None):
        message = '%s failed: %s' % (stage, err)
        LOG.warning('Audit %s: %s', row['uuid'], message)
        notifier.audit('%s.error' % stage, row['uuid'], error=err)
        if finish:
            self._finish(row, AuditState.FAILED, message)
        else:
            # A continuous audit carries on: the next round may succeed.
            audit_runs.advance_round(self._context(), row, self.host,
                                     next_run_time)


def strategy_of(loaded, row):
    """(strategy instance, catalog id) of ``row`` (an audit, a pipeline
    stage: strategy_name, goal_name): its strategy, or its goal's first
    one ("auto")."""
    if row['strategy_name']:
        name = row['strategy_name']
    else:
        candidates = loaded.strategies_for(row['goal_name'])
        if not candidates:
            raise AuditFailed('goal %s has no strategy installed'
                              % row['goal_name'])
        name = candidates[0]
    return loaded.strategy(name)


def efficacy_of(strategy, solution):
    """(efficacy indicators, global efficacy) of the solution, once the
    strategy is known to have given every indicator its goal requires
    (as Watcher: a strategy that gives none is left alone)."""
    given = solution.indicator_values
    missing = solution.goal.missing_indicators(given)
    if given and missing:
        raise AuditFailed(
            'strategy %s did not give the efficacy indicator(s) %s that '
            'goal %s requires' % (strategy.name, ', '.join(missing),
                                  solution.goal.name))
    return solution.efficacy_indicators(), solution.global_efficacy()


def narrowed(who, name, snapshot, scope):
    """``snapshot`` of the data model ``name`` narrowed to ``scope`` (a
    checked scope), saying so in the log for ``who``."""
    if name == 'compute' and audit_scope.compute_rules(scope):
        narrow = compute_scope.apply(snapshot, scope)
        LOG.info('%s: its scope leaves %d of %d compute node(s) and %d of '
                 '%d server(s) to its strategy', who, len(narrow.nodes),
                 len(snapshot.nodes), len(narrow.instances),
                 len(snapshot.instances))
        return narrow
    if name == 'storage' and audit_scope.storage_rules(scope):
        narrow = storage_scope.apply(snapshot, scope)
        LOG.info('%s: its scope leaves %s to its strategy', who,
                 storage_scope.summary(snapshot, narrow))
        return narrow
    return snapshot


def _summary(actions):
    """'3 migrate, 1 change_nova_service_state' (or 'no action')."""
    counts = collections.Counter(action.action_type for action in actions)
    return ', '.join('%d %s' % (n, kind) for kind, n in counts.items()) \
        or 'no action'
