"""Who is alive: each decision engine and applier is a member of its
daemon's tooz group, and liveness comes from the group's heartbeats, never
from clocks compared in the database.

Work is spread over the live members with a consistent hash ring, so that
when a member comes or goes only its share of the work moves.
"""

import os
import threading
import urllib.parse

from oslo_config import cfg
from oslo_log import log
from tooz import coordination
from tooz import hashring

CONF = cfg.CONF
LOG = log.getLogger(__name__)

# The daemons whose liveness the groups tell (one group per binary).
GROUPED_BINARIES = ('watcher-ha-decision-engine', 'watcher-ha-applier')

# The option each tooz driver reads for how long a silent member stays.
_TIMEOUT_OPTION = {'redis': 'membership_timeout',
                   'rediss': 'membership_timeout'}


def backend_url(conf=CONF):
    """The tooz URL, with the member timeout unless the URL sets one."""
    url = conf.coordination.backend_url or 'file://%s' % os.path.join(
        conf.state_path, 'coordination')
    parts = urllib.parse.urlsplit(url)
    option = _TIMEOUT_OPTION.get(parts.scheme, 'timeout')
    query = urllib.parse.parse_qs(parts.query)
    if option in query:
        return url
    extra = urllib.parse.urlencode({option: conf.coordination.member_timeout})
    return urllib.parse.urlunsplit(parts._replace(
        query='%s&%s' % (parts.query, extra) if parts.query else extra))


class Group:
    """This process as ``member`` of ``group``, and the group's live
    members as last read."""

    def __init__(self, group, member, conf=CONF):
        self.group = group.encode()
        self.member = member
        self._conf = conf
        self._coordinator = None
        self._lock = threading.Lock()
        self._members = None

    def start(self):
        self._coordinator = coordination.get_coordinator(
            backend_url(self._conf), self.member.encode())
        self._coordinator.start(start_heart=True)
        try:
            self._join()
        except coordination.ToozError as err:
            # The backend may come later; members() joins again.
            LOG.warning('Could not join group %s yet: %s',
                        self.group.decode(), err)

    def _join(self):
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
        LOG.info('%s joined group %s', self.member, self.group.decode())

    def members(self):
        """The live members' names, or None when the backend cannot be
        read (then nobody may be presumed dead)."""
        with self._lock:
            try:
                live = self._read()
                if self.member not in live:
                    # Our membership lapsed (the backend restarted, or this
                    # process was paused past the timeout): join again.
                    self._join()
                    live = self._read() | {self.member}
            except coordination.ToozError as err:
                LOG.warning('Members of %s unknown: %s', self.group.decode(),
                            err)
                self._members = None
                return None
            if live != self._members:
                LOG.info('Group %s: %s', self.group.decode(),
                         ', '.join(sorted(live)))
            self._members = live
            return live

    def _read(self):
        try:
            ids = self._coordinator.get_members(self.group).get()
        except coordination.GroupNotCreated:
            return frozenset()
        return frozenset(m.decode() for m in ids)

    @property
    def last_members(self):
        return self._members

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
