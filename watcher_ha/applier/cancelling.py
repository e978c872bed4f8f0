"""A plan's cancel reaching the actions it finds running.

An operator cancels a running plan by moving it to CANCELLING: no action
starts after that (plan_runs.move_action refuses), and those running are
asked to stop. While a run goes, a thread reads the plan's state every
``[watcher_applier] poll_interval`` seconds; once it is CANCELLING, it asks
each running action's plugin to ``cancel()`` (a live migration is aborted
in Nova), again at each look until the plugin says it stopped or its
action ends: Nova refuses to abort a migration it has not begun yet. An
action that cannot be stopped (a cold migration, a service change) runs
to its end. The run then ends the plan CANCELLED (workflow.PlanRun).

One read per running plan and interval: the applier already polls the
cloud that often for each action that waits.
"""

import contextlib
import threading

from oslo_log import log

from watcher_ha.applier import fencing
from watcher_ha.common import tracing
from watcher_ha.common.states import ActionPlanState
from watcher_ha.db import engine as db_engine
from watcher_ha.db import plan_runs

LOG = log.getLogger(__name__)


class CancelWatch:
    """Watches one plan's state while its run goes (a context manager),
    and cancels the plugins ``running`` meanwhile once it is
    CANCELLING."""

    def __init__(self, context, plan, interval):
        self._context = context
        self._plan = plan
        self._interval = interval
        self._lock = threading.Condition()
        # The plugins running that a cancel has not stopped yet.
        self._running = set()
        # Those whose cancel() is being called: its answer may come back
        # after execute() saw the work stop in the cloud.
        self._asked = set()
        self._seen = False
        self._done = threading.Event()
        self._thread = None

    def __enter__(self):
        self._thread = threading.Thread(
            target=self._watch, daemon=True,
            name='cancel-watch-%s' % self._plan['uuid'])
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        self._done.set()
        self._thread.join()

    @contextlib.contextmanager
    def running(self, plugin):
        """``plugin`` executes meanwhile: a cancel reaches it. One added
        once the cancel was seen is reached at the next look. On the way
        out, a cancel() of it under way is waited for: execute() may end
        on the stop the cancel caused (a live migration aborted leaves
        the server on its source) before cancel() has set ``cancelled``,
        and the action would end FAILED for an operator's cancel."""
        with self._lock:
            self._running.add(plugin)
        try:
            yield plugin
        finally:
            with self._lock:
                self._running.discard(plugin)
                self._lock.wait_for(lambda: plugin not in self._asked)

    def _watch(self):
        with tracing.working_on(self._plan.get('request_id')):
            self._look_until_done()

    def _look_until_done(self):
        while not self._done.wait(self._interval):
            if not self._seen:
                try:
                    state = plan_runs.plan_state(self._context, self._plan)
                except db_engine.DB_ERRORS as err:
                    # The run's own writes meet the same outage and stop
                    # it; the next look may work.
                    LOG.warning('Reading the state of plan %s failed: %s',
                                self._plan['uuid'], err)
                    continue
                if state != ActionPlanState.CANCELLING:
                    continue
                self._seen = True
                LOG.info('Action plan %s is being cancelled: stopping its '
                         'running actions that can be stopped',
                         self._plan['uuid'])
            self._cancel_running()

    def _cancel_running(self):
        with self._lock:
            plugins = list(self._running)
        for plugin in plugins:
            with self._lock:
                if plugin not in self._running:
                    # Its execute() ended meanwhile.
                    continue
                self._asked.add(plugin)
            stopped = False
            try:
                stopped = self._ask(plugin)
            finally:
                with self._lock:
                    self._asked.discard(plugin)
                    if stopped:
                        self._running.discard(plugin)
                    self._lock.notify_all()

    def _ask(self, plugin):
        """Whether ``plugin``'s cancel() says it stopped."""
        try:
            return plugin.cancel()
        except fencing.Fenced as err:
            # Not this applier's any more: the run finds it out itself at
            # its next call to the cloud.
            LOG.info('Cancel of %s not sent: %s', plugin.name, err)
        except Exception:  # noqa: BLE001
            LOG.exception('Cancelling a running %s failed', plugin.name)
        return False
