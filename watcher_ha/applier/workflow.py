"""Executing one action plan with taskflow.

Each action is a task; ``parents`` become graph edges, so independent
actions run in parallel. Before each action the plan's state is read
again: a plan being cancelled (CANCELLING) stops between actions. Every
action moves PENDING -> ONGOING by compare-and-swap before it runs, so an
action is never executed twice, even if the plan is launched twice.
"""

import futurist
from oslo_config import cfg
from oslo_log import log
from taskflow import engines
from taskflow import exceptions as taskflow_exc
from taskflow.patterns import graph_flow
from taskflow import task

from watcher_ha.applier.actions import base as action_base
from watcher_ha.common import context as watcher_context
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import plan_runs
from watcher_ha.notifications import notifier

CONF = cfg.CONF
LOG = log.getLogger(__name__)


class PlanCancelled(Exception):
    """The plan is being cancelled: no further action starts."""


class ShuttingDown(Exception):
    """The applier stops: the plan is handed over, not finished."""


class ActionFailed(Exception):
    def __init__(self, action, reason):
        super().__init__('action %s (%s) failed: %s' % (
            action['uuid'], action['action_type'], reason))


class ActionTask(task.Task):

    def __init__(self, run, action):
        super().__init__(name=action['uuid'])
        self.run = run
        self.action = action
        self.plugin = None

    def execute(self):
        run, action = self.run, self.action
        if run.stopping.is_set():
            raise ShuttingDown()
        if run.plan_state() == ActionPlanState.CANCELLING:
            raise PlanCancelled()
        if not run.move(action, ActionState.PENDING, ActionState.ONGOING):
            # Skipped by a user, or done by an earlier run of the plan.
            return
        LOG.info('Executing action %s (%s) of plan %s', action['uuid'],
                 action['action_type'], run.plan['uuid'])
        notifier.action('update', action['uuid'],
                        old_state=ActionState.PENDING)
        notifier.action('execution.start', action['uuid'])
        try:
            self.plugin = run.plugin(action)
        except Exception as err:  # noqa: BLE001
            run.move(action, ActionState.ONGOING, ActionState.FAILED,
                     str(err))
            notifier.action('execution.error', action['uuid'], error=err)
            raise ActionFailed(action, err)
        run.started(self.plugin)
        try:
            self.plugin.pre_condition()
            self.plugin.execute()
            self.plugin.post_condition()
        except Exception as err:  # noqa: BLE001
            if run.stopping.is_set() and self.plugin.aborted:
                # Interrupted, not failed. It stays ONGOING: its effect may
                # have begun in the cloud (a migration Nova goes on with),
                # so the applier the plan goes to asks the action's
                # recover() before anything runs again.
                raise ShuttingDown()
            reason = str(err) or type(err).__name__
            if not isinstance(err, action_base.ActionError):
                LOG.exception('Action %s raised', action['uuid'])
            run.move(action, ActionState.ONGOING, ActionState.FAILED, reason)
            notifier.action('execution.error', action['uuid'], error=err)
            raise ActionFailed(action, reason)
        finally:
            run.finished(self.plugin)
        run.move(action, ActionState.ONGOING, ActionState.SUCCEEDED)
        notifier.action('execution.end', action['uuid'])

    def revert(self, *args, **kwargs):
        if (self.plugin is not None
                and CONF.watcher_applier.rollback_when_actionplan_failed):
            try:
                self.plugin.revert()
            except Exception:  # noqa: BLE001
                LOG.exception('Reverting action %s failed',
                              self.action['uuid'])


class PlanRun:
    """Everything one execution of one plan shares across its tasks."""

    def __init__(self, plan, host, catalog, stopping):
        self.plan = plan
        self.host = host
        self.catalog = catalog
        self.stopping = stopping
        self.context = watcher_context.admin_context()
        self._running = set()

    def plugin(self, action):
        """The action's plugin, built from validated parameters."""
        cls = self.catalog.get(action['action_type'])
        if cls is None:
            raise action_base.ActionError(
                'action type %s is not installed on %s'
                % (action['action_type'], self.host))
        cls.validate(action['input_parameters'])
        return cls(action['input_parameters'], self.context)

    def plan_state(self):
        return plan_runs.plan_state(self.context, self.plan)

    def move(self, action, source, target, status_message=None):
        return plan_runs.move_action(self.context, self.plan, self.host,
                                     action, source, target, status_message)

    def started(self, plugin):
        self._running.add(plugin)
        # stop() sets ``stopping`` and then aborts what it finds running:
        # a plugin added after that look is aborted here, or it would run
        # to its end while its applier shuts down.
        if self.stopping.is_set():
            plugin.abort()

    def finished(self, plugin):
        self._running.discard(plugin)

    def abort(self):
        for plugin in list(self._running):
            plugin.abort()

    def flow(self, actions):
        """The graph of the actions still to run."""
        todo = {a['uuid']: a for a in actions
                if a['state'] == ActionState.PENDING}
        flow = graph_flow.Flow('action-plan-%s' % self.plan['uuid'])
        tasks = {uuid: ActionTask(self, action)
                 for uuid, action in todo.items()}
        flow.add(*tasks.values())
        for uuid, action in todo.items():
            for parent in action['parents'] or ():
                if parent in tasks:
                    flow.link(tasks[parent], tasks[uuid])
        return flow

    def execute(self):
        """Run the plan's remaining actions; returns the plan's outcome:
        (state, message), or raises ShuttingDown."""
        actions = plan_runs.actions_of(self.context, self.plan)
        flow = self.flow(actions)
        if not len(flow):
            return self._outcome(None)
        with futurist.ThreadPoolExecutor(
                CONF.watcher_applier.workers) as executor:
            engine = engines.load(flow, engine='parallel',
                                  executor=executor)
            try:
                engine.run()
            except taskflow_exc.WrappedFailure as failures:
                return self._outcome(_first_cause(
                    [f.exception for f in failures]))
            except (PlanCancelled, ShuttingDown, ActionFailed) as err:
                return self._outcome(err)
        return self._outcome(None)

    def _outcome(self, error):
        if isinstance(error, ShuttingDown):
            raise error
        if isinstance(error, ActionFailed):
            return ActionPlanState.FAILED, str(error)
        if (isinstance(error, PlanCancelled)
                or self.plan_state() == ActionPlanState.CANCELLING):
            return ActionPlanState.CANCELLED, None
        if error is not None:
            return ActionPlanState.FAILED, str(error)
        return ActionPlanState.SUCCEEDED, None


def _first_cause(errors):
    """Of several parallel failures: shutting down wins, then a failed
    action, then a cancel."""
    for kind in (ShuttingDown, ActionFailed, PlanCancelled):
        for error in errors:
            if isinstance(error, kind):
                return error
    return errors[0]
