"""Who is alive: each decision engine and applier is a member of its
daemon's tooz group, and liveness comes from the group's heartbeats, never
from clocks compared in the database.

Work is spread over the live members with a consistent hash ring, so that
when a member comes or goes only its share of the work moves.

Nobody is presumed dead on thin evidence. A member's heartbeat record
lives a quarter of ``[coordination] member_timeout`` (so that a death shows
quickly), but a peer counts as gone only once it was absent from reads
``member_timeout`` apart (a live peer whose record was lost, say to a
flushed Redis, joins again within ``membership_refresh``). Right after this
process (re)joined, found its group missing or failed a read, the
membership is *unknown* for ``member_timeout``: nobody is gone meanwhile,
since the others may be joining again too.

A member that cannot read its group for half of ``member_timeout`` is
*cut off*: on the minority side of a partition of a replicated backend
(etcd), or with no backend at all, its heartbeats fail too, and the
others will presume it gone once its record has lapsed and they have
seen it absent for ``member_timeout``. So it gives its work up first
(``on_cut_off``): the others adopt no work it still runs. It takes
nothing meanwhile, and carries on once a read succeeds again.
"""

import math
import os
import threading
import time
import urllib.parse

import prometheus_client
from oslo_config import cfg
from oslo_log import log
from tooz import coordination
from tooz import hashring

CONF = cfg.CONF
LOG = log.getLogger(__name__)

CUT_OFF = prometheus_client.Gauge(
    'watcher_ha_coordination_cut_off',
    '1 while this daemon cannot read its coordination group (cut off from '
    'the backend, or on the minority side of a partition of it): it has '
    'given its work up, and the others take it over; 0 otherwise.')

# The daemons whose liveness the groups tell (one group per binary).
GROUPED_BINARIES = ('watcher-ha-decision-engine', 'watcher-ha-applier')

# The option each tooz driver reads for how long a silent member's record
# stays; the others read ``timeout``.
_TIMEOUT_OPTION = {'redis': 'membership_timeout',
                   'rediss': 'membership_timeout'}
# Drivers whose timeout is a whole number of seconds.
_WHOLE_SECONDS = ('file', 'etcd3', 'etcd3+http', 'etcd3+https')

# A member's heartbeat record lasts this share of member_timeout; the rest
# of member_timeout is how long its absence must be seen.
RECORD_SHARE = 0.25
# A member that has not read its group for this share of member_timeout
# is cut off. The others adopt its work no sooner than its record's
# lifetime (RECORD_SHARE) after its last beat, plus member_timeout: half
# of member_timeout leaves the cut-off member time for a read that hangs
# until the backend's timeout and for stopping its jobs, before that.
CUT_OFF_SHARE = 0.5
# How late a periodic read may start: two reads member_timeout apart on
# the schedule count as such even if the later one started that much
# early relative to the first (else a second more would pass, one time in
# two, before a dead member is taken over).
READ_LATENESS = 0.1


def record_lifetime(conf=CONF, scheme='redis'):
    """Seconds a member's heartbeat record outlives its last beat (tooz
    beats every half of it)."""
    seconds = max(1.0, conf.coordination.member_timeout * RECORD_SHARE)
    return math.ceil(seconds) if scheme in _WHOLE_SECONDS else seconds


def backend_url(conf=CONF):
    """The tooz URL, with the record lifetime unless the URL sets one."""
    url = conf.coordination.backend_url or 'file://%s' % os.path.join(
        conf.state_path, 'coordination')
    parts = urllib.parse.urlsplit(url)
    option = _TIMEOUT_OPTION.get(parts.scheme, 'timeout')
    query = urllib.parse.parse_qs(parts.query)
    if option in query:
        return url
    extra = urllib.parse.urlencode(
        {option: record_lifetime(conf, parts.scheme)})
    return urllib.parse.urlunsplit(parts._replace(
        query='%s&%s' % (parts.query, extra) if parts.query else extra))


class Membership:
    """One read of a group, as far as it can be trusted.

    ``live``: the members present in the read (this process included).
    ``known``: False within member_timeout of a (re)join, a missing group
    or a failed read: then nobody may be presumed gone.
    """

    def __init__(self, live, known, read_at, absent_since, timeout):
        self.live = live
        self.known = known
        self._read_at = read_at
        self._absent_since = absent_since
        self._timeout = timeout

    def gone(self, member):
        """``member`` (a host; None: nobody) may be presumed dead: it was
        absent from reads at least member_timeout apart, and from every
        read between."""
        if member is None:
            return self.known
        if not self.known or member in self.live:
            return False
        since = self._absent_since.setdefault(member, self._read_at)
        return self._read_at - since >= self._timeout - READ_LATENESS

    def missing_since(self, member):
        """The monotonic time of the first read ``member`` was absent
        from since it was last seen; None if it is not missing."""
        if member is None or member in self.live:
            return None
        return self._absent_since.get(member)


class Group:
    """This process as ``member`` of ``group``, and what it can tell of
    the others."""

    def __init__(self, group, member, conf=CONF):
        self.group = group.encode()
        self.member = member
        self._conf = conf
        self._coordinator = None
        self._lock = threading.Lock()
        self._live = None
        # {member: monotonic time of the first read it was absent from,
        # among the reads since it was last seen}: for the members seen
        # once, and the owners of work asked about.
        self._absent_since = {}
        self._seen = set()
        self._unknown_until = 0.0
        # What runs before this process joins again after a lapse (see
        # look()): each user of the membership registers its own.
        self._before_rejoin = []
        # Out of the group by its own choice (step_out()), and whether
        # the leave went through.
        self._stepped_out = False
        self._left = False
        # The monotonic time of the last read of the group that went
        # through (its start counts: the work an earlier life held is
        # resumed before any read), whether this process is cut off
        # (module docstring), and what runs when it becomes so.
        self._last_read = time.monotonic()
        self._cut_off = False
        self._on_cut_off = []

    @property
    def _timeout(self):
        return self._conf.coordination.member_timeout

    def start(self):
        self._coordinator = coordination.get_coordinator(
            backend_url(self._conf), self.member.encode())
        self._coordinator.start(start_heart=True)
        try:
            self._join()
        except coordination.ToozError as err:
            # The backend may come later; look() joins again.
            self._unknown()
            LOG.warning('Could not join group %s yet: %s',
                        self.group.decode(), err)

    def _join(self):
        # Beat first: tooz's Redis driver drops, on any member's read, a
        # member whose heartbeat record is missing, and the heart may not
        # beat again for a while.
        self._coordinator.heartbeat()
        try:
            self._coordinator.create_group(self.group).get()
        except coordination.GroupAlreadyExist:
            pass
        try:
            self._coordinator.join_group(self.group).get()
        except coordination.MemberAlreadyExist:
            # Our membership lives on: from before a restart under the
            # same name (killed, it could not leave), or a join that
            # raced.
            pass
        # The others may be joining again too (the backend restarted):
        # give them the time to show up before anyone is presumed gone.
        self._unknown()
        LOG.info('%s joined group %s', self.member, self.group.decode())

    def _unknown(self):
        self._unknown_until = time.monotonic() + self._timeout
        self._absent_since.clear()

    def before_rejoin(self, callback):
        """Have ``callback()`` run whenever this process finds its
        membership lapsed, before it joins again (see look())."""
        self._before_rejoin.append(callback)

    def on_cut_off(self, callback):
        """Have ``callback()`` run when this process finds itself cut
        off from its group's backend (module docstring)."""
        self._on_cut_off.append(callback)

    @property
    def cut_off(self):
        """No read of the group for CUT_OFF_SHARE of member_timeout:
        this process must act on nothing until a read goes through."""
        return self._cut_off

    @property
    def stepped_out(self):
        """Out of the group by step_out(), until step_in()."""
        return self._stepped_out

    def step_out(self):
        """Leave the group, and stay out until step_in(): the others
        take the work of this process over once they have seen it absent
        for member_timeout, and it must act on none meanwhile (its
        database refuses it: service/database_watch.py). look() answers
        None meanwhile, and leaves again if the leave failed."""
        with self._lock:
            if not self._stepped_out:
                LOG.warning('%s steps out of group %s', self.member,
                            self.group.decode())
                self._left = False
            self._stepped_out = True
            self._live = None
            self._leave()

    def _leave(self):
        if self._left or self._coordinator is None:
            return
        try:
            if self.member in self._read():
                self._coordinator.leave_group(self.group).get()
            self._left = True
        except coordination.ToozError as err:
            LOG.warning('%s could not leave group %s yet: %s', self.member,
                        self.group.decode(), err)

    def step_in(self):
        """End step_out(): the next look() finds this process absent
        and joins again, once the before_rejoin() callbacks ran (its work
        may have been taken over meanwhile)."""
        with self._lock:
            if self._stepped_out:
                LOG.info('%s steps into group %s again', self.member,
                         self.group.decode())
            self._stepped_out = False

    def look(self):
        """Read the group: a Membership, or None when the backend cannot
        be read or this process stepped out of it. If this process finds
        its own membership lapsed (the backend lost it, this process was
        paused past its record's lifetime, or it stepped out), the
        callbacks given to before_rejoin() run before it joins again: the
        others may have taken its work over meanwhile."""
        with self._lock:
            if self._stepped_out:
                self._leave()
                return None
            read_at = time.monotonic()
            try:
                live = self._read()
                if self.member not in live:
                    LOG.warning('%s is not in group %s any more; joining '
                                'again', self.member, self.group.decode())
                    for callback in self._before_rejoin:
                        callback()
                    self._join()
                    live = self._read() | {self.member}
            except coordination.ToozError as err:
                LOG.warning('Members of %s unknown: %s', self.group.decode(),
                            err)
                self._unknown()
                self._live = None
                self._check_cut_off()
                return None
            self._last_read = read_at
            if self._cut_off:
                LOG.warning('%s reads group %s again: acting again',
                            self.member, self.group.decode())
                self._cut_off = False
                CUT_OFF.set(0)
            for member in live:
                self._absent_since.pop(member, None)
            # Absences are timed from the first read that misses a member,
            # during the unknown window too (a live member shows up again
            # within membership_refresh, and its clock starts over).
            self._seen |= live
            for member in self._seen - live:
                self._absent_since.setdefault(member, read_at)
            if live != self._live:
                LOG.info('Group %s: %s', self.group.decode(),
                         ', '.join(sorted(live)))
            self._live = live
            return Membership(live, read_at >= self._unknown_until, read_at,
                              self._absent_since, self._timeout)

    def _check_cut_off(self):
        silent = time.monotonic() - self._last_read
        if self._cut_off or silent < CUT_OFF_SHARE * self._timeout:
            return
        LOG.error('%s has not read group %s for %.1f s: it is cut off from '
                  'the coordination backend (or from its majority), and '
                  'the others will take its work over. Giving its work up '
                  'and taking none until a read goes through.', self.member,
                  self.group.decode(), silent)
        self._cut_off = True
        CUT_OFF.set(1)
        for callback in self._on_cut_off:
            callback()

    def _read(self):
        try:
            ids = self._coordinator.get_members(self.group).get()
        except coordination.GroupNotCreated:
            # Gone with the backend's data: we are not in it either.
            return frozenset()
        return frozenset(m.decode() for m in ids)

    @property
    def last_members(self):
        return self._live

    def stop(self):
        if self._coordinator is None:
            return
        try:
            self._coordinator.leave_group(self.group).get()
        except coordination.ToozError as err:
            LOG.info('Leaving group %s: %s', self.group.decode(), err)
        try:
            self._coordinator.stop()
        except coordination.ToozError as err:
            LOG.info('Stopping coordination: %s', err)
        self._coordinator = None


class _Reader:
    """One coordinator per process that reads groups without joining
    them (the API); started on first use, after any fork."""

    def __init__(self):
        self._lock = threading.Lock()
        self._coordinator = None
        self._made_for = None

    def members(self, group, conf):
        with self._lock:
            try:
                made_for = (os.getpid(), backend_url(conf))
                if self._coordinator is None or self._made_for != made_for:
                    self._coordinator = coordination.get_coordinator(
                        made_for[1],
                        b'reader-%s-%d' % (conf.host.encode(), os.getpid()))
                    self._coordinator.start()
                    self._made_for = made_for
                try:
                    ids = self._coordinator.get_members(
                        group.encode()).get()
                except coordination.GroupNotCreated:
                    return frozenset()
                return frozenset(m.decode() for m in ids)
            except coordination.ToozError as err:
                LOG.warning('Members of %s unknown: %s', group, err)
                # Start afresh next time: the backend may have restarted.
                self._coordinator = None
                return None


_READER = _Reader()


def read_members(group, conf=CONF):
    """The live members of ``group`` without joining it, or None when the
    backend cannot be read."""
    return _READER.members(group, conf)


def members_by_binary(conf=CONF):
    """{binary: live members or None} for every grouped daemon."""
    return {binary: read_members(binary, conf)
            for binary in GROUPED_BINARIES}


class Ring:
    """Which member owns a piece of work: a consistent hash ring over the
    live members, rebuilt only when they change."""

    def __init__(self):
        self._members = None
        self._ring = None

    def owner(self, members, key):
        if members != self._members:
            self._members = members
            self._ring = (hashring.HashRing(sorted(members)) if members
                          else None)
        if self._ring is None:
            return None
        return next(iter(self._ring.get_nodes(key.encode())))
