"""A watcher_ha daemon: an RPC server, a heartbeat and periodic tasks
around a manager that does the work (composition, no deep base class).

Stopping (SIGTERM) stops consuming first, then lets the manager finish or
hand back what it holds within ``STOP_TIMEOUT`` seconds.

Liveness (``stalled()``, for systemd's watchdog, service/service.py): the
loops the daemon runs itself say when they last went round, and a loop
silent for too long is named: the heartbeat, the scheduler of the
periodic tasks (a tick of its own every ``TICK_SECONDS``), and each
periodic task, which must not run for much longer than its interval.
A slow or unreachable database, bus or coordination backend stalls none
of them (their calls fail, or time out, and the loop goes on): that is
the health check's business (service/healthcheck.py); a loop stuck for good
(a lost connection nobody times out, a deadlock, a pool whose every
thread is stuck) is what restarting the daemon cures.

While its database refuses it (a Galera node outside the Primary
component), the daemon is out of its coordination group and its
manager's periodic tasks are skipped (service/database_watch.py); so they
are while it cannot read its group (cut off from the coordination
backend or from its majority: service/coordination.py).
"""

import datetime
import threading
import time

import oslo_messaging
from apscheduler.schedulers import background
from oslo_config import cfg
from oslo_log import log
from oslo_service import service

from watcher_ha.common import context
from watcher_ha.db import services
from watcher_ha.service import coordination
from watcher_ha.service import database_watch
from watcher_ha.service import rpc
from watcher_ha.service import rpc_metrics

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# SIGTERM to exit, all included; the manager gets most of it.
STOP_TIMEOUT = 8.0

# A loop silent for longer than this (or than STALL_FACTOR times its
# interval, if longer) is stalled. Well above what a slow database or
# cloud makes a round last: their calls time out within a minute.
STALL_SECONDS = 120.0
STALL_FACTOR = 3
# How often the scheduler's own tick runs.
TICK_SECONDS = 10


def stall_bound(interval):
    return max(STALL_SECONDS, STALL_FACTOR * interval)


class Periodic:
    """A task run every ``interval()`` seconds (re-read on SIGHUP)."""

    def __init__(self, name, func, interval, at_start=False):
        self.name = name
        self.func = func
        self.interval = interval
        # Also run once right after the daemon starts.
        self.at_start = at_start
        # Monotonic times: the start of the run in progress (None when
        # idle), and the end of the last one (the scheduling at first).
        self.running_since = None
        self.last_end = time.monotonic()

    def __call__(self):
        self.running_since = time.monotonic()
        try:
            self.func()
        except Exception:  # noqa: BLE001
            # One failed round must not stop the next ones.
            LOG.exception('Periodic task %s failed', self.name)
        finally:
            self.running_since = None
            self.last_end = time.monotonic()

    def stuck(self, now):
        """Running for much longer than its interval."""
        return (self.running_since is not None
                and now - self.running_since > stall_bound(self.interval()))


class Heartbeat:
    """Records ``binary`` on ``host`` as alive in the services registry
    every [DEFAULT] heartbeat_interval seconds."""

    def __init__(self, binary, host=None, details=None):
        self.binary = binary
        self.host = host or CONF.host
        # details() -> what to report with each beat (or None).
        self.details = details
        self._stopped = threading.Event()
        self._thread = None
        # Monotonic time the loop last went round.
        self.last_round = time.monotonic()

    def silent(self, now):
        """The loop has not gone round for much longer than its
        interval."""
        return now - self.last_round > stall_bound(CONF.heartbeat_interval)

    def beat(self):
        try:
            services.heartbeat(context.admin_context(), self.binary,
                               self.host,
                               self.details() if self.details else None)
        except Exception as err:  # noqa: BLE001
            LOG.warning('Heartbeat of %s failed: %s', self.binary, err)

    def start(self):
        self.beat()
        self.last_round = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name='heartbeat',
                                        daemon=True)
        self._thread.start()

    def _loop(self):
        while not self._stopped.wait(CONF.heartbeat_interval):
            self.beat()
            self.last_round = time.monotonic()

    def stop(self):
        self._stopped.set()


class Services(service.ServiceBase):
    """Several services run as one in one process: started in order,
    stopped in the reverse order, so that what was started last (the API
    of an all-in-one) takes nothing new while the others finish or hand
    back their work."""

    def __init__(self, services):
        self.services = services

    def start(self):
        for svc in self.services:
            svc.start()

    def stop(self, graceful=True):
        for svc in reversed(self.services):
            svc.stop()

    def wait(self):
        for svc in self.services:
            svc.wait()

    def reset(self):
        for svc in self.services:
            svc.reset()

    def stalled(self):
        return [name for svc in self.services
                for name in getattr(svc, 'stalled', list)()]


class Daemon(service.ServiceBase):
    """Runs ``manager`` (start(), stop(timeout), endpoints(), periodic())
    as the service ``binary`` listening on ``topic``."""

    def __init__(self, binary, topic, manager, host=None):
        self.binary = binary
        self.topic = topic
        self.manager = manager
        self.host = host or CONF.host
        self._rpc_server = None
        self._scheduler = None
        # The periodic tasks scheduled, the scheduler's tick among them.
        self._tasks = []
        self._tick = Periodic('scheduler', lambda: None,
                              lambda: TICK_SECONDS)
        self._stopped = threading.Event()
        self._heartbeat = Heartbeat(binary, self.host,
                                    getattr(manager, 'details', None))
        self.group = coordination.Group(binary, self.host)
        # Steps the daemon out of its group while its database refuses
        # it (service/database_watch.py).
        self.database = database_watch.DatabaseWatch(self.group)
        self._watch = Periodic(
            'database_ready', self._look_at_backends,
            lambda: CONF.coordination.membership_refresh)

    def start(self):
        LOG.info('%s starting on %s', self.binary, self.host)
        self._heartbeat.start()
        self.group.start()
        self.manager.start(self.group)
        target = oslo_messaging.Target(topic=self.topic, server=self.host)
        self._rpc_server = oslo_messaging.get_rpc_server(
            rpc.get_transport(), target,
            rpc_metrics.timed(self.manager.endpoints()),
            executor='threading')
        self._rpc_server.start()
        self._scheduler = background.BackgroundScheduler(timezone='UTC')
        self._schedule()
        self._scheduler.start()
        LOG.info('%s started on %s', self.binary, self.host)

    def _schedule(self):
        self._tick.last_end = time.monotonic()
        self._tasks = [self._tick, self._watch] + list(
            self.manager.periodic())
        for task in self._tasks:
            first = ({'next_run_time': datetime.datetime.now(
                datetime.timezone.utc)} if task.at_start else {})
            run = (task if task in (self._tick, self._watch)
                   else self._while_served(task))
            self._scheduler.add_job(
                run, 'interval', seconds=task.interval(), id=task.name,
                name=task.name, replace_existing=True, max_instances=1,
                coalesce=True, **first)

    def _look_at_backends(self):
        """Whether the database serves this daemon; and while it is cut
        off from its coordination group (coordination.Group.cut_off),
        whether a read of the group goes through again: the tasks that
        read it otherwise are skipped meanwhile."""
        self.database.look()
        if self.group.cut_off:
            self.group.look()

    def _while_served(self, task):
        """``task``, skipped while the database refuses the daemon or it
        is cut off from its coordination group: it acts on nothing
        meanwhile."""
        def run():
            if self.database.ready and not self.group.cut_off:
                task()
        return run

    def stalled(self, now=None):
        """The names of the daemon's loops that stalled (none while it
        stops: its drain has bounds of its own), at monotonic time
        ``now``."""
        if self._stopped.is_set():
            return []
        now = time.monotonic() if now is None else now
        found = ['heartbeat'] if self._heartbeat.silent(now) else []
        if now - self._tick.last_end > stall_bound(TICK_SECONDS):
            # Nothing runs the periodic tasks any more.
            found.append(self._tick.name)
        return found + [task.name for task in self._tasks
                        if task.stuck(now)]

    def stop(self, graceful=True):
        if self._stopped.is_set():
            return
        LOG.info('%s stopping', self.binary)
        self._stopped.set()
        if self._rpc_server is not None:
            self._rpc_server.stop()
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
        try:
            self.manager.stop(STOP_TIMEOUT)
            if self._rpc_server is not None:
                self._rpc_server.wait()
        finally:
            # Last, whatever happened: the others must not take over what
            # is still being handed back, and must see this daemon leave.
            self.group.stop()
            self._heartbeat.stop()
        LOG.info('%s stopped', self.binary)

    def wait(self):
        self._stopped.wait()

    def reset(self):
        # SIGHUP: oslo.service re-read the mutable options; apply the new
        # periodic intervals.
        if self._scheduler is not None:
            self._schedule()
