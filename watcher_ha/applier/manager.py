"""The applier: RPC endpoints, action plans in a thread pool, sweeps."""

import threading
import time

from futurist import ThreadPoolExecutor
from oslo_config import cfg
from oslo_log import log

from watcher_ha.applier import workflow
from watcher_ha.common import context as watcher_context
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

    def start(self):
        catalog_db.sync(watcher_context.admin_context())
        self.actions = plugins.load_classes(plugins.ACTIONS)
        self._pool = ThreadPoolExecutor(CONF.watcher_applier.max_plans)

    def endpoints(self):
        return [Endpoints(self)]

    def periodic(self):
        return [daemon.Periodic('sweep_action_plans', self.sweep,
                                lambda: CONF.watcher_applier.sweep_interval)]

    def submit(self, plan_uuid):
        with self._lock:
            if self._stopping.is_set() or plan_uuid in self._runs:
                return
            self._runs[plan_uuid] = None
        self._pool.submit(self._execute, plan_uuid)

    def sweep(self):
        """Take the started plans whose launch never arrived."""
        for uuid in plan_runs.unclaimed(watcher_context.admin_context(),
                                        CONF.watcher_applier.pending_grace):
            self.submit(uuid)

    def _execute(self, uuid):
        try:
            self._run(uuid)
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
        run = workflow.PlanRun(plan, self.host, self.actions,
                               self._stopping)
        with self._lock:
            self._runs[uuid] = run
        try:
            state, message = run.execute()
        except workflow.ShuttingDown:
            # stop() hands the plan back.
            return
        before = plan_runs.finish(context, plan, self.host, state, message)
        if before is None:
            LOG.info('Action plan %s was taken from %s', uuid, self.host)
            return
        LOG.info('Action plan %s %s%s', uuid, state,
                 ': %s' % message if message else '')
        notifier.action_plan('update', uuid, old_state=before)
        if state == ActionPlanState.FAILED:
            notifier.action_plan('execution.error', uuid,
                                 error=RuntimeError(message))
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
        released = plan_runs.release(watcher_context.admin_context(),
                                     self.host)
        if released:
            LOG.info('Handed action plan(s) %s back to the other appliers',
                     ', '.join(released))
