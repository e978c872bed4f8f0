"""Executing one action plan with taskflow.

Each action is a task; ``parents`` become graph edges, so independent
actions run in parallel. Before each action the plan's state is read
again: a plan being cancelled (CANCELLING) starts no more actions, and
the running ones that can be stopped are (applier/cancelling.py: a live
migration is aborted in Nova); they end CANCELLED, the others run to
their end, and the plan ends CANCELLED. Every
action moves PENDING -> ONGOING by compare-and-swap before it runs, so an
action is never executed twice, even if the plan is launched twice; and
its plugin's calls to the cloud pass a fence (applier/fencing.py), so an
applier that lost the plan meanwhile makes none.

A run can also stop without ending the plan (``Interrupted``): the
applier stops and hands the plan back, the plan was taken over, or its
bookkeeping hit a database error. The action in hand then stays ONGOING,
and whoever runs the plan next asks its ``recover()`` what became of it.
"""

import collections
from concurrent import futures
import contextlib
import logging
import time

from oslo_config import cfg
from oslo_log import log
from taskflow import engines
from taskflow import exceptions as taskflow_exc
from taskflow.patterns import graph_flow
from taskflow import task

from watcher_ha.applier.actions import base as action_base
from watcher_ha.applier import cancelling
from watcher_ha.applier import fencing
from watcher_ha.applier import metrics
from watcher_ha.common import context as watcher_context
from watcher_ha.common import tracing
from watcher_ha.common.states import ActionPlanState
from watcher_ha.common.states import ActionState
from watcher_ha.db import engine as db_engine
from watcher_ha.db import plan_runs
from watcher_ha.notifications import notifier

CONF = cfg.CONF
LOG = log.getLogger(__name__)


# What a rollback records on each action it reverted, or tried to.
REVERTED = 'reverted after the plan failed'
REVERT_FAILED = 'reverting it after the plan failed failed'


class PlanCancelled(Exception):
    """The plan is being cancelled: no further action starts."""


class Interrupted(Exception):
    """The run stops here and leaves the plan as it is: the applier stops,
    the plan was taken over, or its state could not be recorded."""


class ActionFailed(Exception):
    def __init__(self, action, reason):
        super().__init__('action %s (%s) failed: %s' % (
            action['uuid'], action['action_type'], reason))


class ActionTask(task.Task):

    def __init__(self, run, action):
        super().__init__(name=action['uuid'])
        self.run = run
        self.action = action

    def execute(self):
        # In one of taskflow's threads: logged under the plan's request.
        with tracing.working_on(self.run.plan.get('request_id')):
            self._execute()

    def _execute(self):
        run, action = self.run, self.action
        run.check_halted()
        if run.plan_state() == ActionPlanState.CANCELLING:
            raise PlanCancelled()
        # Noted before the start is sent: should its commit go
        # unacknowledged, the action still counts as begun by this
        # process, not by a lost applier (see takeover.Takeover).
        run.started_here.add(action['uuid'])
        token = run.move(action, ActionState.PENDING, ActionState.ONGOING)
        if token is None:
            # Skipped by a user, or done by an earlier run of the plan.
            return
        run.began(action)
        LOG.info('Executing action %s (%s) of plan %s on %s: %s',
                 action['uuid'], action['action_type'], run.plan['uuid'],
                 run.host, _parameters(action))
        notifier.action('update', action['uuid'],
                        old_state=ActionState.PENDING)
        notifier.action('execution.start', action['uuid'])
        try:
            plugin = run.plugin(action, run.fence(action,
                                                  ActionState.ONGOING,
                                                  token))
        except Exception as err:  # noqa: BLE001
            self._failed(err, token)
        try:
            with run.halt.running(plugin), run.cancels.running(plugin):
                try:
                    plugin.pre_condition()
                except action_base.ActionSkipped as skipped:
                    self._skipped(skipped, token)
                    return
                plugin.execute()
                plugin.post_condition()
        except fencing.Fenced as err:
            raise Interrupted(str(err))
        except Exception as err:  # noqa: BLE001
            if plugin.cancelled:
                # Stopped by the plan's cancel (its failure is the stop):
                # CANCELLED, and nothing more starts.
                self._cancelled(plugin.cancelled, token)
                raise PlanCancelled()
            halted = run.halt()
            if halted and plugin.aborted:
                # Interrupted, not failed. It stays ONGOING: its effect may
                # have begun in the cloud (a migration Nova goes on with),
                # so the applier the plan goes to asks the action's
                # recover() before anything runs again.
                raise Interrupted(halted)
            if not isinstance(err, action_base.ActionError):
                LOG.exception('Action %s raised', action['uuid'])
            self._failed(err, token, contained=plugin.failure_is_contained)
            return
        run.end(action, token, ActionState.SUCCEEDED, plugin.outcome)
        run.succeeded(action, plugin)
        notifier.action('execution.end', action['uuid'])

    def _skipped(self, why, token):
        reason = str(why) or 'nothing left to do'
        self.run.end(self.action, token, ActionState.SKIPPED, reason)
        notifier.action('update', self.action['uuid'],
                        old_state=ActionState.ONGOING)

    def _cancelled(self, how, token):
        notifier.action('cancel.start', self.action['uuid'])
        self.run.end(self.action, token, ActionState.CANCELLED, how)
        notifier.action('update', self.action['uuid'],
                        old_state=ActionState.ONGOING)
        notifier.action('cancel.end', self.action['uuid'])

    def _failed(self, err, token, contained=False):
        reason = str(err) or type(err).__name__
        self.run.end(self.action, token, ActionState.FAILED, reason)
        notifier.action('execution.error', self.action['uuid'], error=err)
        failure = ActionFailed(self.action, reason)
        if not contained:
            raise failure
        # Its own server's failure: the others go on, and the plan ends
        # FAILED with it once they are done.
        LOG.warning('%s; the rest of plan %s goes on', failure,
                    self.run.plan['uuid'])
        self.run.contained.append(failure)

    def revert(self, *args, **kwargs):
        # Rollbacks are the plan's business, not taskflow's: only actions
        # the database records as SUCCEEDED, and only when one failed
        # (PlanRun._roll_back).
        pass


class PlanRun:
    """Everything one execution of one plan shares across its tasks."""

    def __init__(self, plan, host, action_classes, stopping,
                 started_here=None):
        self.plan = plan
        self.host = host
        self.action_classes = action_classes
        self.stopping = stopping
        # Where the run notes each action it starts (see
        # takeover.Takeover).
        self.started_here = set() if started_here is None else started_here
        self.context = watcher_context.admin_context()
        self.halt = fencing.Halt(host, stopping)
        # Started while the actions run (execute).
        self.cancels = cancelling.CancelWatch(
            self.context, plan, CONF.watcher_applier.poll_interval)
        # (action uuid, its plugin) in the order they succeeded here.
        self._succeeded = []
        # ActionFailed of the actions whose failure stopped nothing else
        # (Action.failure_is_contained), in the order they failed.
        self.contained = []
        # {action uuid: monotonic time this run moved it ONGOING}
        self._began = {}

    def plugin(self, action, fence):
        """The action's plugin, built from validated parameters."""
        cls = self.action_classes.get(action['action_type'])
        if cls is None:
            raise action_base.ActionError(
                'action type %s is not installed on %s'
                % (action['action_type'], self.host))
        cls.validate(action['input_parameters'])
        return cls(action['input_parameters'], self.context, fence)

    def _contained(self, action):
        cls = self.action_classes.get(action['action_type'])
        return cls is not None and cls.failure_is_contained

    def fence(self, action, state, token):
        return fencing.Fence(self.context, self.plan, self.host, action,
                             state, token, self.halt)

    def check_halted(self):
        halted = self.halt()
        if halted:
            raise Interrupted(halted)

    @contextlib.contextmanager
    def _recording(self):
        """A write of the run's progress: if the database fails it, or the
        plan is not ours any more, the run stops there (and the self-check
        of whoever owns the plan takes it up again)."""
        try:
            yield
        except plan_runs.PlanCancelling:
            raise PlanCancelled()
        except plan_runs.LostPlan as err:
            raise Interrupted(str(err))
        except db_engine.DB_ERRORS as err:
            raise Interrupted('recording the progress of plan %s failed: %s'
                              % (self.plan['uuid'], err))

    def plan_state(self):
        with self._recording():
            return plan_runs.plan_state(self.context, self.plan)

    def move(self, action, source, target, status_message=None,
             token=None):
        """The action's move (see plan_runs.move_action): its new version,
        or None if it was not in ``source`` (at ``token``)."""
        with self._recording():
            return plan_runs.move_action(self.context, self.plan, self.host,
                                         action, source, target,
                                         status_message, token)

    def began(self, action):
        self._began[action['uuid']] = time.monotonic()

    def end(self, action, token, state, status_message=None):
        """Record how the action this run began (at version ``token``)
        ended; if it is not that run's any more (taken over, settled by
        another), the run stops there."""
        if self.move(action, ActionState.ONGOING, state, status_message,
                     token) is None:
            raise Interrupted('action %s was taken from this run'
                              % action['uuid'])
        began = self._began.pop(action['uuid'], None)
        metrics.ended(action, state, None if began is None
                      else time.monotonic() - began)
        LOG.log(logging.WARNING if state == ActionState.FAILED
                else logging.INFO, 'Action %s (%s) of plan %s %s%s',
                action['uuid'], action['action_type'], self.plan['uuid'],
                state, ': %s' % status_message if status_message else '')

    def succeeded(self, action, plugin):
        self._succeeded.append((action['uuid'], plugin))

    def flow(self, actions):
        """The graph of the actions still to run."""
        return graph('action-plan-%s' % self.plan['uuid'],
                     [a for a in actions
                      if a['state'] == ActionState.PENDING],
                     lambda action: ActionTask(self, action))

    def execute(self):
        """Run the plan's remaining actions; returns the plan's outcome:
        (state, message), or raises Interrupted."""
        with self._recording():
            actions = plan_runs.actions_of(self.context, self.plan)
        failed = [a for a in actions if a['state'] == ActionState.FAILED]
        stopping = [a for a in failed if not self._contained(a)]
        if stopping:
            # An earlier run ended on this failure but could not record
            # the plan's end (its applier died, or lost the database):
            # end it as that run would have, running nothing more.
            return self._outcome(_failure_of(stopping[0]))
        # Failures that stopped nothing: the rest runs, as it would have.
        self.contained.extend(_failure_of(a) for a in failed)
        flow = self.flow(actions)
        if not len(flow):
            return self._outcome(None)
        try:
            with self.cancels:
                run_graph(flow, actions)
        except taskflow_exc.WrappedFailure as failures:
            return self._outcome(_first_cause(
                [f.exception for f in failures]))
        except (PlanCancelled, Interrupted, ActionFailed) as err:
            return self._outcome(err)
        return self._outcome(self.contained[0] if self.contained else None)

    def _outcome(self, error):
        if isinstance(error, Interrupted):
            raise error
        if isinstance(error, ActionFailed):
            message = str(error)
            if CONF.watcher_applier.rollback_when_actionplan_failed:
                message += self._roll_back()
            return ActionPlanState.FAILED, message
        if (isinstance(error, PlanCancelled)
                or self.plan_state() == ActionPlanState.CANCELLING):
            return ActionPlanState.CANCELLED, None
        if error is not None:
            return ActionPlanState.FAILED, str(error)
        return ActionPlanState.SUCCEEDED, None

    def _roll_back(self):
        """Revert the plan's actions that SUCCEEDED (as the database says:
        this run's and an earlier one's), latest first, each through its
        fence; record what became of each. Returns what to add to the
        plan's status message."""
        with self._recording():
            # Those an earlier run of the rollback reverted already (or
            # tried to) are left alone.
            done = [a for a in plan_runs.actions_of(self.context, self.plan)
                    if a['state'] == ActionState.SUCCEEDED
                    and not (a['status_message'] or '').startswith(
                        (REVERTED, REVERT_FAILED))]
        here = dict(self._succeeded)
        by_uuid = {a['uuid']: a for a in done}
        # Those of an earlier run first (in creation order), then this
        # run's in the order they succeeded; reverted the other way round.
        order = ([a for a in done if a['uuid'] not in here]
                 + [by_uuid[uuid] for uuid, _ in self._succeeded
                    if uuid in by_uuid])
        reverted, failed = [], []
        for action in reversed(order):
            fence = self.fence(action, ActionState.SUCCEEDED,
                               action['version'])
            plugin = here.get(action['uuid'])
            try:
                if plugin is None:
                    plugin = self.plugin(action, fence)
                plugin.fence = fence
                plugin.revert()
            except fencing.Fenced as err:
                raise Interrupted(str(err))
            except Exception as err:  # noqa: BLE001
                LOG.warning('Reverting action %s failed: %s',
                            action['uuid'], err)
                failed.append(action['uuid'])
                note = '%s: %s' % (REVERT_FAILED, err)
            else:
                reverted.append(action['uuid'])
                note = REVERTED
            with self._recording():
                plan_runs.note_action(self.context, self.plan, self.host,
                                      action, ActionState.SUCCEEDED, note)
        summary = ''
        if reverted:
            summary += '; rolled back: %s' % ', '.join(reverted)
        if failed:
            summary += '; could not roll back: %s' % ', '.join(failed)
        return summary or '; nothing to roll back'


def graph(name, actions, task_of):
    """A graph flow of ``actions``, each the task ``task_of(action)``,
    each linked after those of its parents that are among them: an action
    starts once they have ended."""
    flow = graph_flow.Flow(name)
    tasks = {action['uuid']: task_of(action) for action in actions}
    flow.add(*tasks.values())
    for action in actions:
        for parent in action['parents'] or ():
            if parent in tasks:
                flow.link(tasks[parent], tasks[action['uuid']])
    return flow


def run_graph(flow, actions):
    """Run ``flow`` (a graph of ``actions``) as an applier runs a plan:
    with as many threads as the widest step of its pending actions needs,
    ``[watcher_applier] workers`` at least. What a task raised is raised
    (several at once: taskflow's WrappedFailure).

    The standard library's pool: its shutdown wakes its idle threads at
    once, where futurist's waits for each to give up waiting for work
    (1 s), and every plan's end was recorded that much later."""
    with futures.ThreadPoolExecutor(
            max(CONF.watcher_applier.workers, _width(actions))) as executor:
        engines.load(flow, engine='parallel', executor=executor).run()


def _parameters(action):
    """The action's input parameters, in one line, keys sorted."""
    return ', '.join('%s=%s' % (key, value) for key, value in
                     sorted((action['input_parameters'] or {}).items())) \
        or 'no parameter'


def _failure_of(action):
    return ActionFailed(action, action['status_message'] or 'it failed')


def _width(actions):
    """How many of the pending ``actions`` the plan lets run at once, at
    most: the most of them at one depth of its graph (the planner's
    lanes all start at one depth)."""
    todo = {a['uuid']: [p for p in a['parents'] or () if p]
            for a in actions if a['state'] == ActionState.PENDING}
    children = collections.defaultdict(list)
    waiting = {}
    for uuid, parents in todo.items():
        parents = [p for p in parents if p in todo]
        waiting[uuid] = len(parents)
        for parent in parents:
            children[parent].append(uuid)
    # Level by level from the roots (Kahn's order, no recursion: a plan
    # may be a chain of thousands).
    level = [uuid for uuid, count in waiting.items() if count == 0]
    widest = 1
    while level:
        widest = max(widest, len(level))
        following = []
        for uuid in level:
            for child in children[uuid]:
                waiting[child] -= 1
                if waiting[child] == 0:
                    following.append(child)
        level = following
    return widest


def _first_cause(errors):
    """Of several parallel failures: an interruption wins, then a failed
    action, then a cancel."""
    for kind in (Interrupted, ActionFailed, PlanCancelled):
        for error in errors:
            if isinstance(error, kind):
                return error
    return errors[0]
