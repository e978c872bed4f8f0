"""Fencing: no call to the cloud from an applier that lost the plan.

An applier that freezes (SIGSTOP, a VM pause, a long GC, a hung request,
or cut off from the coordination backend while it still reaches the
database and the cloud) is presumed gone by the others, and its plan is
adopted by one of them. When it resumes, it must not carry on with the
action it was running. So immediately before every call that changes
something in the cloud, the action's fence checks in the database, in one
conditional UPDATE, that:

* this applier (``host``) still runs the plan (ONGOING or CANCELLING);
* the action is still in the state it ran in (ONGOING; SUCCEEDED for a
  rollback's revert);
* the action's version is still the fencing token taken when this run of
  it began. An adoption moves the versions of the plan's interrupted
  actions on in its own transaction, so an old run stays fenced even if
  the plan comes back to its applier later.

The fence also refuses once this run is halted (the applier stops, or
found the plan taken while it was out of its group). A failed check, a
database error included, raises ``Fenced``: the call is not made, the run
stops, the action stays ONGOING, and whoever runs the plan next asks the
action's ``recover()`` what became of it.

What the fence cannot stop is a call already on the wire: one that passed
the fence just before the plan was adopted. Each pass is stamped on the
action (``fenced_at``), and an adopter waits until ``[watcher_applier]
takeover_grace`` seconds have passed since the last pass before it looks
at the cloud (``wait_for_calls_in_flight``), so that such a call has
landed and ``recover()`` sees it (a migration under way is waited for; a
resize waiting for its confirmation is confirmed). A call held longer than
that between the fence and the cloud (the applier frozen in the middle of
sending it) can still land later; Nova then refuses it for a server that
is migrating or already on the destination.
"""

import contextlib
import datetime

from oslo_config import cfg
from oslo_log import log

from watcher_ha.db import engine as db_engine
from watcher_ha.db import models
from watcher_ha.db import plan_runs

CONF = cfg.CONF
LOG = log.getLogger(__name__)


class Fenced(Exception):
    """This applier may not call the cloud for this action (any more)."""


class Halt:
    """Why this applier's work on one plan (a run of its actions, or the
    settling of its interrupted ones) must stop now, or None: the applier
    stops, or found the plan taken over while it was out of its group.
    Callable: what the work's fences ask. It aborts the plugins running
    meanwhile when the work must stop."""

    def __init__(self, host, stopping):
        self._host = host
        self._stopping = stopping
        self._lost = None
        self._running = set()

    def __call__(self):
        if self._stopping.is_set():
            return 'the applier %s is stopping' % self._host
        return self._lost

    def abort(self, lost=None):
        """Abort the running plugins; ``lost``: the plan was taken over
        (the applier's stop needs no reason, ``stopping`` says it)."""
        if lost:
            self._lost = lost
        for plugin in list(self._running):
            plugin.abort()

    @contextlib.contextmanager
    def running(self, plugin):
        """``plugin`` runs meanwhile: an abort reaches it."""
        self._running.add(plugin)
        # The applier's stop sets ``stopping`` and then aborts what it
        # finds running: a plugin added after that look is aborted here,
        # or it would run to its end while its applier shuts down.
        if self():
            plugin.abort()
        try:
            yield plugin
        finally:
            self._running.discard(plugin)


class Fence:
    """The check an action's plugin makes before each call to the cloud;
    callable."""

    def __init__(self, context, plan, host, action, state, token, halted):
        self._context = context
        self._plan = plan
        self._host = host
        self._action = action
        self._state = state
        self._token = token
        # halted() -> why this run must stop (a string), or None.
        self._halted = halted

    def __call__(self):
        action = self._action['uuid']
        halted = self._halted()
        if halted:
            raise Fenced('action %s: %s' % (action, halted))
        try:
            passed = plan_runs.pass_fence(self._context, self._plan,
                                          self._host, self._action,
                                          self._state, self._token)
        except db_engine.DB_ERRORS as err:
            raise Fenced('action %s: could not check that %s still runs '
                         'it: %s' % (action, self._host, err))
        if not passed:
            raise Fenced('action %s of plan %s is no longer run by %s: it '
                         'was taken over' % (action, self._plan['uuid'],
                                             self._host))


def wait_for_calls_in_flight(context, plan, stopping):
    """Before an adopter looks at the cloud: wait until takeover_grace
    seconds have passed since a call to the cloud was last let through
    for the plan's unfinished actions. False if ``stopping`` was set
    meanwhile."""
    last = plan_runs.last_fence_pass(context, plan)
    if last is None:
        return True
    grace = CONF.watcher_applier.takeover_grace
    # Never more than the grace: a stamp from a clock ahead of ours must
    # not hold the plan for longer.
    left = min(grace, (last + datetime.timedelta(seconds=grace)
                       - models.utcnow()).total_seconds())
    if left <= 0:
        return True
    LOG.info('Action plan %s: a call to the cloud was let through %.1f s '
             'ago; waiting %.1f s for it to land before looking',
             plan['uuid'], grace - left, left)
    return not stopping.wait(left)
