"""Work a daemon owns, and what happens to it when daemons come, go, stall
or stop: one engine for the decision engines' audits and the appliers'
action plans, with the domain as callbacks (``Domain``).

A row of owned work carries its owner (``hostname``), stamped by a
compare-and-swap; the engine decides *when* to take, adopt, hand over,
re-examine or release a row, the domain *how*:

* in flight: at most one job per row in this process; a job asked for a
  row already in flight runs after the one in hand (an adoption that
  arrives while the row's launch is still queued is not dropped);
* sweep: rows nobody took (their message lost) are taken;
* self-check: rows this daemon owns that no job of it works on (a
  database error ended the job, a submission was lost, a race was lost)
  are re-examined, so nothing owned by a live daemon stays stuck;
* adoption: a row whose owner is gone from the group goes to the live
  member the hash ring names, which wins a compare-and-swap on the gone
  owner; a row that follows the ring (a continuous audit) is also handed
  over by its owner when the ring moves it;
* stop: the domain interrupts what runs, the jobs get until the timeout,
  then everything still held is handed back.

Membership comes from ``coordination.Group.look``: while it is unknown
(just after a join, after a failed read) nothing is adopted or handed
over; an owner is adopted from only once it is ``gone``. While this
daemon is stepped out of its group (its database refuses it:
service/database_watch.py) nothing is taken, adopted, handed over or
re-examined: the others take its rows over, and the jobs already
running find every write refused. Cut off from its group's backend
(coordination.Group.cut_off) it does the same, and first interrupts
every job it runs, since the others will adopt their rows; when it reads
its group again, the rows still its own are examined again (stranded).
"""

import dataclasses
import threading
import time
from typing import Protocol

import prometheus_client
from futurist import ThreadPoolExecutor
from oslo_config import cfg
from oslo_log import log

from watcher_ha.common import context as watcher_context
from watcher_ha.common import tracing
from watcher_ha.db import engine as db_engine
from watcher_ha.service import coordination
from watcher_ha.service import daemon

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# Why a row owned by this daemon is worked on again (``Domain.resume``).
RESTARTED = 'restarted'   # an earlier life of this daemon held it
ADOPTED = 'adopted'       # taken over from a gone peer
STRANDED = 'stranded'     # held here, but no job of this daemon on it

# How long a lapsed member waits for the jobs it stopped before it joins
# its group again.
LAPSE_WAIT = 5.0

# What became of rows held by this daemon, or by a gone one: the kinds of
# change to CHANGES' ``change`` label.
ADOPTION = 'adopted'        # taken over here from a gone owner
HANDOVER = 'handed_over'    # given by this daemon to the ring's choice
LOSS = 'lost'               # taken over by another while this one lapsed
CHANGES = prometheus_client.Counter(
    'watcher_ha_ownership_changes',
    'Rows of owned work (audits, action plans, host notifications) whose '
    'owner changed through this daemon: adopted from a gone owner, handed '
    'over along the hash ring, or lost while this daemon was out of its '
    'group.', ['kind', 'change'])
TAKEOVER_SECONDS = prometheus_client.Histogram(
    'watcher_ha_takeover_duration_seconds',
    'From the first membership read a gone owner was missing from to its '
    'row adopted here: how long owned work waited for a new owner.',
    ['kind'], buckets=(1, 2.5, 5, 7.5, 10, 15, 20, 30, 45, 60, 120, 300))


@dataclasses.dataclass(frozen=True)
class Held:
    """A row some daemon owns now."""
    uuid: str
    owner: str | None
    # Moves to whichever live member the ring names (a continuous audit),
    # rather than staying with its owner until the owner is gone.
    follows_ring: bool = False
    # Needs a job of its owner while held (a one-shot audit being
    # computed, a plan being executed); a continuous audit between rounds
    # waits for its due time instead.
    needs_worker: bool = True


class Domain(Protocol):
    """One kind of owned work. Every method that changes a row does it by
    compare-and-swap on the owner, so losing a race changes nothing."""

    kind: str

    def unclaimed(self, context) -> list:
        """UUIDs of rows waiting to be taken for longer than the grace."""

    def held(self, context) -> list:
        """Held for every row owned now, this daemon's included."""

    def take(self, uuid) -> None:
        """Claim the row if nobody has it, and work on it (in a job)."""

    def adopt(self, context, held, gone) -> bool:
        """Make this host the owner instead of ``gone``; True if won."""

    def request_id(self, uuid) -> str | None:
        """The id of the API request behind the row, which every line
        logged while working on it carries (common/tracing.py)."""

    def resume(self, uuid, why, previous) -> None:
        """Work on a row this host owns that no job works on (in a job);
        ``why`` is RESTARTED, ADOPTED (from ``previous``) or STRANDED."""

    def hand_over(self, context, held, to) -> bool:
        """Give a ring-following row to ``to``; True if done."""

    def interrupt(self, uuids, why=None) -> set:
        """Stop working on ``uuids`` soon (they are lost, this daemon is
        cut off from its group, or it stops: ``why`` says which, None for a
        stop): abort what runs, leave the rows for their next owner.
        Returns those of ``uuids`` it stopped something of."""

    def release(self, context) -> None:
        """Hand back every row this host holds (it stops)."""

    # Optional, read only by an Owner given urgent_workers:
    # def urgent(self, uuid) -> bool:
    #     """Whether the row recovers from a failure: its jobs run in
    #     the urgent pool."""


class _Alone:
    """The membership of a daemon without a group: itself, for good. It
    adopts only rows nobody owns (an audit resumed by an operator, a plan
    handed back while being cancelled)."""

    known = True

    def __init__(self, host):
        self.live = frozenset((host,))

    def gone(self, member):
        return member is None

    def missing_since(self, member):
        return None


class Owner:
    """Runs ``domain``'s work for ``host`` in a pool of ``workers``; with
    ``urgent_workers``, the rows the domain's ``urgent(uuid)`` names
    (recoveries from a failure) in a pool of their own, so that they
    never wait behind the others."""

    def __init__(self, domain, host, workers, stopping, urgent_workers=0):
        self.domain = domain
        self.host = host
        self.group = None
        self._workers = workers
        self._urgent_workers = urgent_workers
        self._pool = None
        self._urgent_pool = None
        self._ring = coordination.Ring()
        # The latest membership this daemon read (see _adopt).
        self._view = None
        self._lock = threading.Lock()
        # {uuid: [(func, args) to run after the job in hand]}
        self._in_flight = {}
        # The rows whose job a worker runs now (the others wait in the
        # pool's queue).
        self._working = set()
        # Set when the daemon stops; the domain's jobs watch it too.
        self.stopping = stopping
        # Series at zero from the start, so that a rate over them is 0,
        # not missing, until something changes owner.
        for change in (ADOPTION, HANDOVER, LOSS):
            CHANGES.labels(domain.kind, change)
        TAKEOVER_SECONDS.labels(domain.kind)

    def start(self, group):
        """``group``: this daemon's membership (None: a lone daemon, which
        adopts nothing). Rows stamped with this host were held by an
        earlier life of it, killed before it could hand them back."""
        self.group = group
        if group is not None:
            group.before_rejoin(self._lapsed)
            group.on_cut_off(self._cut_off)
        self._pool = ThreadPoolExecutor(self._workers)
        if self._urgent_workers:
            self._urgent_pool = ThreadPoolExecutor(self._urgent_workers)
        context = watcher_context.admin_context()
        for held in self.domain.held(context):
            if held.owner == self.host and held.needs_worker:
                self.submit(held.uuid, self.domain.resume, held.uuid,
                            RESTARTED, self.host)

    # In flight.

    def submit(self, uuid, func, *args):
        """Run ``func(*args)`` in the pool as the job of row ``uuid``, or
        after the job in hand for it. False once stopping, or while out
        of the group (stepped out)."""
        with self._lock:
            if not self.acting():
                return False
            if uuid in self._in_flight:
                queued = self._in_flight[uuid]
                if (func, args) not in queued:
                    queued.append((func, args))
                return True
            self._in_flight[uuid] = []
        self._pool_for(uuid).submit(self._job, uuid, func, args)
        return True

    def _pool_for(self, uuid):
        """The urgent pool for an urgent row, else the other."""
        if self._urgent_pool is None:
            return self._pool
        try:
            urgent = self.domain.urgent(uuid)
        except Exception as err:  # noqa: BLE001
            # The row still runs, in the other lane.
            LOG.warning('%s %s: could not tell whether it is urgent (%s)',
                        self.domain.kind, uuid, err)
            urgent = False
        return self._urgent_pool if urgent else self._pool

    def _job(self, uuid, func, args):
        with self._lock:
            self._working.add(uuid)
        with tracing.working_on(self._request_id(uuid)):
            self._run_jobs(uuid, func, args)

    def _request_id(self, uuid):
        try:
            return self.domain.request_id(uuid)
        except Exception:  # noqa: BLE001
            # Logs without it never stop the work; the job meets a
            # database error itself, and says so.
            return None

    def _run_jobs(self, uuid, func, args):
        """The job of row ``uuid``, then those queued behind it."""
        while True:
            try:
                if not self.stopping.is_set():
                    func(*args)
            except Exception:  # noqa: BLE001
                # The self-check looks at the row again.
                LOG.exception('%s %s: %s failed', self.domain.kind, uuid,
                              getattr(func, '__name__', func))
            with self._lock:
                queued = self._in_flight.get(uuid)
                if not queued or self.stopping.is_set():
                    self._in_flight.pop(uuid, None)
                    self._working.discard(uuid)
                    return
                func, args = queued.pop(0)

    def acting(self):
        """Neither stopping, nor stepped out of its group (service/
        database_watch.py), nor cut off from it: this daemon may take and
        adopt work."""
        return not self.stopping.is_set() and not (
            self.group is not None
            and (self.group.stepped_out or self.group.cut_off))

    def busy(self, uuid):
        with self._lock:
            return uuid in self._in_flight

    def in_flight(self):
        with self._lock:
            return set(self._in_flight)

    # Periodic tasks.

    def periodic(self, name, sweep_interval):
        """The engine's periodic tasks, for a Daemon: the sweep (with the
        self-check) every ``sweep_interval()`` seconds, the look at the
        membership every [coordination] membership_refresh."""
        return [daemon.Periodic('sweep_%s' % name, self.sweep,
                                sweep_interval),
                daemon.Periodic('place_%s' % name, self.look,
                                lambda: CONF.coordination.membership_refresh)]

    def sweep(self):
        """Take the rows nobody took; re-examine the rows held here that
        no job works on."""
        if not self.acting():
            return
        context = watcher_context.admin_context()
        for uuid in self.domain.unclaimed(context):
            self.submit(uuid, self.domain.take, uuid)
        self.self_check(context)

    def self_check(self, context=None):
        context = context or watcher_context.admin_context()
        for held in self.domain.held(context):
            if (held.owner == self.host and held.needs_worker
                    and not self.busy(held.uuid)):
                LOG.warning('%s %s is held by %s but nothing works on it; '
                            'examining it again', self.domain.kind,
                            held.uuid, self.host)
                self.submit(held.uuid, self.domain.resume, held.uuid,
                            STRANDED, self.host)

    def look(self):
        """Read the membership; adopt the rows of gone owners that the
        ring gives this host, and hand over the rows that follow the ring
        to where it now puts them."""
        if not self.acting():
            return
        view = (_Alone(self.host) if self.group is None
                else self.group.look())
        if view is not None:
            self._view = view
        if view is None or not view.known:
            # Nobody may be presumed gone, nor the ring trusted.
            return
        context = watcher_context.admin_context()
        for held in self.domain.held(context):
            try:
                self._place(context, view, held)
            except db_engine.DB_ERRORS as err:
                if not db_engine.lock_wait_timed_out(err):
                    raise
                # Locked by a stuck transaction (its owner paused in the
                # middle of it?): the other rows move meanwhile.
                LOG.warning('%s %s is locked by another transaction; its '
                            'move waits for the next look',
                            self.domain.kind, held.uuid)

    def _place(self, context, view, held):
        assigned = self._ring.owner(view.live, held.uuid)
        if held.owner == self.host:
            if (held.follows_ring and assigned != self.host
                    and not self.busy(held.uuid)
                    and self.domain.hand_over(context, held, assigned)):
                LOG.info('%s %s handed over to %s', self.domain.kind,
                         held.uuid, assigned)
                CHANGES.labels(self.domain.kind, HANDOVER).inc()
            return
        if assigned != self.host or not view.gone(held.owner):
            return
        # The compare-and-swap runs as the row's job: from the moment it
        # commits, the row is one this daemon is working on (the
        # self-check leaves it alone).
        self.submit(held.uuid, self._adopt, held,
                    view.missing_since(held.owner))

    def _adopt(self, held, missing_since=None):
        # The look that queued this job may be seconds old by now: the
        # job waits for a free worker, and every worker may be busy with
        # long work. Meanwhile the owner may have come back (a restarted
        # daemon joins again and resumes its rows itself); the
        # compare-and-swap cannot tell its new life from the dead one
        # (same host), so the latest look must still find it gone, or
        # the row would be taken from a live owner in the middle of its
        # work. Not adopted now, the row is looked at again next look.
        latest = self._view
        if latest is not None and not latest.gone(held.owner):
            LOG.info('%s %s: its owner %s is not presumed gone any more; '
                     'not adopted', self.domain.kind, held.uuid,
                     held.owner or 'nobody')
            return
        LOG.info('%s %s: its owner %s is presumed gone; adopting it',
                 self.domain.kind, held.uuid, held.owner or 'nobody')
        if not self.domain.adopt(watcher_context.admin_context(), held,
                                 held.owner):
            LOG.info('%s %s not adopted: its owner or state changed since '
                     'the look', self.domain.kind, held.uuid)
            return
        LOG.warning('%s %s adopted from %s', self.domain.kind, held.uuid,
                    held.owner or 'no owner')
        CHANGES.labels(self.domain.kind, ADOPTION).inc()
        if missing_since is not None:
            TAKEOVER_SECONDS.labels(self.domain.kind).observe(
                time.monotonic() - missing_since)
        self.domain.resume(held.uuid, ADOPTED, held.owner)

    def _lapsed(self):
        """This daemon fell out of its group: the others may have adopted
        some of its rows already. Stop the jobs on those before joining
        again (the rest goes on: the database says they are still ours,
        and the others cannot adopt them until they have seen us absent
        for member_timeout)."""
        context = watcher_context.admin_context()
        mine = {held.uuid for held in self.domain.held(context)
                if held.owner == self.host}
        # Taken over, or ended by whoever took them over.
        stopped = self.domain.interrupt(
            self.in_flight() - mine,
            'the plan was taken over while %s was out of its group'
            % self.host)
        if not stopped:
            return
        CHANGES.labels(self.domain.kind, LOSS).inc(len(stopped))
        LOG.warning('%s(s) %s were taken over while %s was out of its '
                    'group: stopped', self.domain.kind,
                    ', '.join(sorted(stopped)), self.host)
        deadline = time.monotonic() + LAPSE_WAIT
        while stopped & self.in_flight() and time.monotonic() < deadline:
            time.sleep(0.05)

    def _cut_off(self):
        """This daemon cannot read its group: the others will adopt its
        rows once they have seen it absent for member_timeout. Stop every
        job before that (coordination.CUT_OFF_SHARE); the rows stay
        stamped with this host, for whoever adopts them, or for this
        daemon's self-check if it reads its group again first."""
        stopped = self.domain.interrupt(
            self.in_flight(),
            '%s is cut off from its coordination group' % self.host)
        if stopped:
            LOG.warning('%s(s) %s given up: %s is cut off from its group',
                        self.domain.kind, ', '.join(sorted(stopped)),
                        self.host)

    # Stop.

    def stop(self, timeout):
        """Take no more work; interrupt what runs, give the jobs until
        ``timeout``, then hand back every row still held."""
        deadline = time.monotonic() + timeout
        self.stopping.set()
        self.domain.interrupt(self.in_flight())
        for pool in (self._pool, self._urgent_pool):
            if pool is not None:
                pool.shutdown(wait=False)
        # Jobs still queued never start (they see ``stopping``): wait for
        # those a worker runs only.
        while self._busy_workers() and time.monotonic() < deadline - 1:
            time.sleep(0.1)
        self._release(deadline)

    def _busy_workers(self):
        with self._lock:
            return bool(self._working)

    def _release(self, deadline):
        """Hand back what this daemon holds; a database error is retried
        until ``deadline``: left held, its work would wait for a
        take-over (and be cancelled by it, for a plan)."""
        while True:
            try:
                self.domain.release(watcher_context.admin_context())
                return
            except db_engine.DB_ERRORS as err:
                if time.monotonic() >= deadline:
                    LOG.error('Could not hand back what %s holds: %s; the '
                              'others will take it over', self.host, err)
                    return
                LOG.warning('Handing back what %s holds failed (%s); '
                            'trying again', self.host, err)
                time.sleep(0.5)
