"""The applier: RPC endpoints, action plans in a thread pool, sweeps."""

import threading
import time

from futurist import ThreadPoolExecutor
from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier import recovery
from watcher_ha.applier import workflow
from watcher_ha.common import context as watcher_context
from watcher_ha.common import coordination
from watcher_ha.common import daemon
from watcher_ha.common import plugins
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import catalog as catalog_db
from watcher_ha.db import plan_runs
from watcher_ha.notifications import notifier

CONF = cfg.CONF
LOG = log.getLogger(__name__)

BINARY = 'watcher-ha-applier'


class Endpoints:
    """What other services call; every handler is idempotent."""

    def __init__(self, manager):
        self._manager = manager

    def launch_action_plan(self, context, action_plan_uuid):
        self._manager.submit(action_plan_uuid)


class ApplierManager:

    def __init__(self, host=None):
        self.host = host or CONF.host
        self.actions = {}
        self._pool = None
        self._runs = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.group = None
        self._ring = coordination.Ring()

    def start(self, group=None):
        """``group``: this applier's membership of the appliers' group
        (None: a lone applier)."""
        self.group = group
        context = watcher_context.admin_context()
        catalog_db.sync(context)
        self.actions = plugins.load_classes(plugins.ACTIONS)
        self._pool = ThreadPoolExecutor(CONF.watcher_applier.max_plans)
        # Plans stamped with this host were run by an earlier life of this
        # applier, killed before it could hand them back.
        for uuid, owner in plan_runs.running(context):
            if owner == self.host:
                self._submit(uuid, self._recover, uuid, self.host)

    def endpoints(self):
        return [Endpoints(self)]

    def periodic(self):
        return [daemon.Periodic('sweep_action_plans', self.sweep,
                                lambda: CONF.watcher_applier.sweep_interval),
                daemon.Periodic('adopt_action_plans', self.adopt,
                                lambda: CONF.coordination.membership_refresh)]

    def submit(self, plan_uuid):
        self._submit(plan_uuid, self._run, plan_uuid)

    def _submit(self, plan_uuid, func, *args):
        """Run ``func(*args)`` in the pool unless the plan is in hand."""
        with self._lock:
            if self._stopping.is_set() or plan_uuid in self._runs:
                return
            self._runs[plan_uuid] = None
        self._pool.submit(self._execute, plan_uuid, func, *args)

    def adopt(self):
        """Take the running plans of appliers gone from the group: each
        goes to the live applier the hash ring names, which wins a
        compare-and-swap on the lost owner and resolves it."""
        if self.group is None or self._stopping.is_set():
            return
        members = self.group.members()
        if not members:
            # Backend unreadable: nobody may be presumed dead.
            return
        context = watcher_context.admin_context()
        for uuid, owner in plan_runs.running(context):
            if (owner in members
                    or self._ring.owner(members, uuid) != self.host):
                continue
            if plan_runs.adopt(context, uuid, owner, self.host):
                LOG.warning('Action plan %s adopted from gone applier %s',
                            uuid, owner)
                self._submit(uuid, self._recover, uuid, owner)

    def sweep(self):
        """Take the started plans whose launch never arrived."""
        for uuid in plan_runs.unclaimed(watcher_context.admin_context(),
                                        CONF.watcher_applier.pending_grace):
            self.submit(uuid)

    def _execute(self, uuid, func, *args):
        try:
            func(*args)
        except Exception:  # noqa: BLE001
            LOG.exception('Action plan %s failed to run', uuid)
        finally:
            with self._lock:
                self._runs.pop(uuid, None)

    def _run(self, uuid):
        if self._stopping.is_set():
            # Queued before the stop: leave the plan to the others.
            return
        context = watcher_context.admin_context()
        plan = plan_runs.claim(context, uuid, self.host)
        if plan is None:
            return
        LOG.info('Action plan %s taken by %s', uuid, self.host)
        notifier.action_plan('update', uuid,
                             old_state=ActionPlanState.PENDING)
        notifier.action_plan('execution.start', uuid)
        # A plan handed back by an applier that stopped may hold actions
        # it interrupted: check them before running anything again.
        if recovery.settle_interrupted(
                context, plan, self.host, self.actions,
                'the applier running it stopped'):
            self._carry_out(context, plan)

    def _recover(self, uuid, lost_host):
        """Resolve a plan whose applier (``lost_host``) died running it."""
        if self._stopping.is_set():
            return
        context = watcher_context.admin_context()
        plan = plan_runs.get(context, uuid)
        if plan['hostname'] != self.host:
            return
        if recovery.resolve(context, plan, self.host, self.actions,
                            lost_host):
            LOG.info('Action plan %s resumes on %s', uuid, self.host)
            self._carry_out(context, plan_runs.get(context, uuid))

    def _carry_out(self, context, plan):
        """Run the plan's remaining actions and record how it ended."""
        uuid = plan['uuid']
        run = workflow.PlanRun(plan, self.host, self.actions,
                               self._stopping)
        with self._lock:
            self._runs[uuid] = run
        try:
            state, message = run.execute()
        except workflow.ShuttingDown:
            # stop() hands the plan back.
            return
        self._record_end(context, plan, state, message)

    def _record_end(self, context, plan, state, message):
        """End the plan in ``state``, with its actions that did not start
        cancelled unless it succeeded, and say so."""
        uuid = plan['uuid']
        if state == ActionPlanState.CANCELLED:
            # The cancel an operator asked for is carried out from here:
            # the running actions ended, the others will not run.
            notifier.action_plan('cancel.start', uuid)
        finished = plan_runs.finish(context, plan, self.host, state,
                                    message)
        if finished is None:
            LOG.info('Action plan %s was taken from %s', uuid, self.host)
            return
        self._announce_end(uuid, state, message, finished)

    def _announce_end(self, uuid, state, message, finished):
        before, cancelled = finished
        LOG.info('Action plan %s %s%s', uuid, state,
                 ': %s' % message if message else '')
        notifier.action_plan('update', uuid, old_state=before)
        notifier.actions_followed(cancelled)
        if state == ActionPlanState.FAILED:
            notifier.action_plan('execution.error', uuid,
                                 error=RuntimeError(message))
        elif state == ActionPlanState.CANCELLED:
            notifier.action_plan('cancel.end', uuid)
        else:
            notifier.action_plan('execution.end', uuid)

    def stop(self, timeout):
        """Take no more work; interrupt the running actions, then hand the
        plans this applier holds back to the others."""
        deadline = time.monotonic() + timeout
        self._stopping.set()
        with self._lock:
            runs = [run for run in self._runs.values() if run is not None]
        for run in runs:
            run.abort()
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        while self._runs and time.monotonic() < deadline - 1:
            time.sleep(0.1)
        released, cancelled = plan_runs.release(
            watcher_context.admin_context(), self.host)
        if released:
            LOG.info('Handed action plan(s) %s back to the other appliers',
                     ', '.join(released))
        for uuid in released:
            notifier.action_plan('update', uuid,
                                 old_state=ActionPlanState.ONGOING)
        for uuid, finished in cancelled:
            notifier.action_plan('cancel.start', uuid)
            self._announce_end(uuid, ActionPlanState.CANCELLED,
                               'cancelled as %s stopped' % self.host,
                               finished)
