"""The applier: RPC endpoints, and action plans as owned work.

Which plan runs where, and what happens to plans when appliers come, go,
stall or stop, is the ownership engine's (service/ownership.py); this module
says how to take, run, resume and hand back one plan.
"""

import contextlib
import threading
import time

from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier import fencing
from watcher_ha.applier import metrics
from watcher_ha.applier import plan_end
from watcher_ha.applier import takeover
from watcher_ha.applier import workflow
from watcher_ha.common import context as watcher_context
from watcher_ha.common import plugins
from watcher_ha.common import urgency
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import action_plans
from watcher_ha.db import installed_plugins
from watcher_ha.db import plan_runs
from watcher_ha.notifications import notifier
from watcher_ha.service import ownership

CONF = cfg.CONF
LOG = log.getLogger(__name__)

BINARY = 'watcher-ha-applier'


class Endpoints:
    """What other services call; every handler is idempotent."""

    def __init__(self, manager):
        self._manager = manager

    def launch_action_plan(self, context, action_plan_uuid):
        self._manager.submit(action_plan_uuid)


class ActionPlans:
    """Action plans as owned work (ownership.Domain)."""

    kind = 'action plan'

    def __init__(self, host, owner_stopping):
        self.host = host
        self.actions = {}
        self._stopping = owner_stopping
        # {plan uuid: its PlanRun, or its Recovery, while it runs here}
        self._runs = {}
        # {plan uuid: the actions of it this process started}, until the
        # plan's end is recorded here (see takeover.Takeover).
        self._started_here = {}
        # {plan uuid: (why, previous): what this process took it for},
        # from the taking until the plan's settling is done. A settling,
        # or the taking's own commit, cut short by a database error
        # leaves the plan held here with nothing working on it: the
        # self-check's look settles it again for what it was taken for,
        # not as a run of this process stopped short (which runs on).
        self._taken_as = {}
        self._lock = threading.Lock()

    def unclaimed(self, context):
        return plan_runs.unclaimed(context,
                                   CONF.watcher_applier.pending_grace)

    def urgent(self, uuid):
        """Whether the plan recovers from a failure (common/urgency.py):
        it runs in the recovery lane."""
        return action_plans.strategy_name(
            watcher_context.admin_context(), uuid) in \
            urgency.RECOVERY_STRATEGIES

    def held(self, context):
        return [ownership.Held(uuid, owner)
                for uuid, owner in plan_runs.running(context)]

    def adopt(self, context, held, gone):
        self._taking(held.uuid, ownership.ADOPTED, gone)
        won = plan_runs.adopt(context, held.uuid, gone, self.host)
        if not won:
            self._forget(held.uuid)
        return won

    def hand_over(self, context, held, to):
        # A plan stays with its applier while that one lives.
        return False

    def request_id(self, uuid):
        return plan_runs.request_id(watcher_context.admin_context(), uuid)

    def take(self, uuid):
        context = watcher_context.admin_context()
        self._taking(uuid, takeover.HANDED_BACK, self.host)
        plan = plan_runs.claim(context, uuid, self.host)
        if plan is None:
            self._forget(uuid)
            return
        LOG.info('Action plan %s taken by %s', uuid, self.host)
        notifier.action_plan('update', uuid,
                             old_state=ActionPlanState.PENDING)
        notifier.action_plan('execution.start', uuid)
        # A plan handed back by an applier that stopped may hold actions
        # it interrupted: check them before running anything again.
        self._settle_and_run(context, plan, takeover.HANDED_BACK,
                             self.host)

    def resume(self, uuid, why, previous):
        context = watcher_context.admin_context()
        plan = plan_runs.get(context, uuid)
        if (plan['hostname'] != self.host
                or plan['state'] not in plan_runs.RUNNING):
            self._forget(uuid)
            return
        self._settle_and_run(context, plan, why, previous)

    def _taking(self, uuid, why, previous):
        """This process takes the plan ``uuid`` (see _taken_as)."""
        self._forget(uuid)
        self._taken_as[uuid] = (why, previous)

    def _forget(self, uuid):
        """The plan is not this process's to settle or run any more."""
        self._started_here.pop(uuid, None)
        self._taken_as.pop(uuid, None)

    def _settle_and_run(self, context, plan, why, previous):
        uuid = plan['uuid']
        taken = time.monotonic()
        if why == ownership.STRANDED and uuid in self._taken_as:
            why, previous = self._taken_as[uuid]
        else:
            self._taken_as[uuid] = (why, previous)
        settling = takeover.Takeover(
            context, plan, self.host, self.actions, why, previous,
            self._stopping, frozenset(self._started_here.get(uuid, ())))
        try:
            with self._running(uuid, settling):
                runs_on = settling.settle()
        except (plan_runs.LostPlan, fencing.Fenced) as err:
            LOG.info('Action plan %s is not settled on %s: %s', uuid,
                     self.host, err)
            self._forget(uuid)
            return
        if runs_on:
            self._taken_as.pop(uuid, None)
            LOG.info('Action plan %s goes on, on %s', uuid, self.host)
            self._carry_out(context, plan_runs.get(context, uuid), taken)
        else:
            self._forget(uuid)

    @contextlib.contextmanager
    def _running(self, uuid, work):
        """``work`` (a PlanRun or a Recovery) is what interrupt() aborts
        for the plan meanwhile."""
        with self._lock:
            self._runs[uuid] = work
        try:
            yield
        finally:
            with self._lock:
                self._runs.pop(uuid, None)

    def _carry_out(self, context, plan, taken):
        """Run the plan's remaining actions and record how it ended
        (``taken``: the monotonic time this applier took it)."""
        uuid = plan['uuid']
        run = workflow.PlanRun(plan, self.host, self.actions,
                               self._stopping,
                               self._started_here.setdefault(uuid, set()))
        try:
            with self._running(uuid, run):
                state, message = run.execute()
        except workflow.Interrupted as err:
            LOG.info('Action plan %s stops on %s: %s', uuid, self.host, err)
            return
        self._record_end(context, plan, state, message, taken)
        self._forget(uuid)

    def _record_end(self, context, plan, state, message, taken=None):
        """End the plan in ``state``, with its actions that did not start
        cancelled unless it succeeded, and say so once it is recorded."""
        uuid = plan['uuid']
        ended = plan_runs.finish(context, plan, self.host, state, message)
        if ended is None:
            LOG.info('Action plan %s was taken from %s', uuid, self.host)
            return
        if taken is not None:
            metrics.plan_ended(ended.state, time.monotonic() - taken)
        LOG.info('Action plan %s %s%s', uuid, ended.state,
                 ': %s' % ended.message if ended.message else '')
        plan_end.announce(context, uuid, ended)

    def interrupt(self, uuids, why=None):
        with self._lock:
            runs = {uuid: run for uuid, run in self._runs.items()
                    if uuid in uuids}
        # A stop needs no reason (the halt sees ``stopping``); any other
        # interruption is the plan lost to this run, for ``why``.
        for work in runs.values():
            work.halt.abort(why)
        return set(runs)

    def release(self, context):
        released, cancelled, cancelling = plan_runs.release(context,
                                                            self.host)
        if released:
            LOG.info('Handed action plan(s) %s back to the other appliers',
                     ', '.join(released))
        if cancelling:
            LOG.info('Handed action plan(s) %s, being cancelled, back to '
                     'the other appliers: their interrupted actions must be '
                     'checked first', ', '.join(cancelling))
        for uuid in released:
            notifier.action_plan('update', uuid,
                                 old_state=ActionPlanState.ONGOING)
        for uuid, ended in cancelled:
            LOG.info('Action plan %s CANCELLED as %s stopped', uuid,
                     self.host)
            plan_end.announce(context, uuid, ended,
                              'cancelled as %s stopped' % self.host)


class ApplierManager:

    def __init__(self, host=None):
        self.host = host or CONF.host
        stopping = threading.Event()
        self.plans = ActionPlans(self.host, stopping)
        self.owner = ownership.Owner(
            self.plans, self.host, CONF.watcher_applier.max_plans, stopping,
            urgent_workers=CONF.watcher_applier.max_recovery_plans)

    @property
    def actions(self):
        return self.plans.actions

    def start(self, group=None):
        """``group``: this applier's membership of the appliers' group
        (None: a lone applier)."""
        installed_plugins.sync(watcher_context.admin_context())
        self.plans.actions = plugins.load_classes(plugins.ACTIONS)
        metrics.known(self.plans.actions)
        self.owner.start(group)

    def endpoints(self):
        return [Endpoints(self)]

    def periodic(self):
        return self.owner.periodic(
            'action_plans', lambda: CONF.watcher_applier.sweep_interval)

    def submit(self, plan_uuid):
        self.owner.submit(plan_uuid, self.plans.take, plan_uuid)

    def stop(self, timeout):
        """Take no more work; interrupt the running actions, then hand the
        plans this applier holds back to the others."""
        self.owner.stop(timeout)
