"""The cluster data model one decision engine keeps in memory.

Writers (the notification handlers, the resync) make a new ``ClusterState``
under one lock and swap it in; readers never lock: ``snapshot()`` returns
the current state, which nothing changes any more.

A resync builds a fresh state off to the side while notifications keep
being applied to the live one and are also recorded; when the fresh state
is ready, the recorded notifications are replayed onto it (the stamps drop
what the fresh read already shows) and it is swapped in, so no update that
arrived during the resync is lost. The fresh state also keeps the
tombstones of the servers removed since the previous read began, so that
an event about them that comes late cannot bring them back.

What an event changes is the source's business, not the model's: the
collector that builds a model hands it ``apply_event`` (for the compute
model, feed.nova_events.apply), so that another model (e.g. storage, fed
by Cinder) reuses this class with its own events.
"""

import dataclasses
import threading
import time

from oslo_log import log

from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.model import state as model_state

LOG = log.getLogger(__name__)


class ModelNotReady(Exception):
    """No full sync has completed yet."""


def _no_events(changes, event):
    raise TypeError('this data model was made without apply_event: it '
                    'takes no notifications')


class ClusterModel:

    def __init__(self, name='compute', apply_event=_no_events, empty=None):
        """``apply_event(changes, event)``: applies one notification to
        the changes of a state and returns the names it gave that the
        model does not know (to be fetched from the source). ``empty``:
        the state the model starts from (default: an empty ClusterState;
        a storage model's is an empty StorageState)."""
        self.name = name
        self._apply_event = apply_event
        self._lock = threading.Lock()
        self._state = (model_state.ClusterState() if empty is None
                       else empty)
        self._recording = None
        # When the read of the resync under way began, and of the last
        # one swapped in (stamps: naive UTC).
        self._reading_since = None
        self._read_since = elements.EPOCH
        self._ready = threading.Event()
        self.last_resync = None          # time.time() of the last swap
        self.last_notification = None    # time.time() of the last event
        self.notifications_applied = 0

    # Readers.

    def snapshot(self):
        """The current state: consistent, immutable, O(1)."""
        return self._state

    @property
    def generation(self):
        return self._state.generation

    def wait_ready(self, timeout):
        """The state once a first sync completed; ModelNotReady after
        ``timeout`` seconds."""
        if not self._ready.wait(timeout):
            raise ModelNotReady(
                'the %s data model is still being built (no full sync of '
                'the cluster has completed yet)' % self.name)
        return self._state

    @property
    def ready(self):
        return self._ready.is_set()

    def info(self):
        """Generation and ages, for the API and the logs."""
        now = time.time()

        def age(moment):
            return None if moment is None else round(now - moment, 3)
        return {'name': self.name, 'generation': self.generation,
                'ready': self.ready,
                'seconds_since_resync': age(self.last_resync),
                'seconds_since_notification': age(self.last_notification)}

    # Writers.

    def apply(self, event):
        """Apply one notification; returns the names it gave that the
        model does not know (to be fetched from the source)."""
        return self.apply_many([event])

    def apply_many(self, events):
        """Apply notifications in order as one change (one lock, one new
        state: what makes a burst cheap); returns the hostnames they named
        that the model does not know. If one of them fails, none is
        applied and the error is raised: the caller applies them one by
        one to keep the others."""
        missing = set()
        with self._lock:
            changes = self._state.changes()
            for event in events:
                missing |= self._apply_event(changes, event)
            self._state = changes.state()
            if self._recording is not None:
                self._recording.extend(events)
            self.last_notification = time.time()
            self.notifications_applied += len(events)
        return missing

    def update(self, edit):
        """Apply ``edit(changes)`` (e.g. a node fetched from the source)."""
        with self._lock:
            changes = self._state.changes()
            edit(changes)
            self._state = changes.state()

    def begin_resync(self, stamp=None):
        """Start recording notifications for the resync under way, whose
        read begins at ``stamp`` (default: now)."""
        with self._lock:
            self._recording = []
            self._reading_since = stamp or elements.utcnow()

    def finish_resync(self, fresh):
        """Swap in ``fresh`` (a state read from the source), with every
        notification received since ``begin_resync`` replayed onto it."""
        with self._lock:
            recorded, self._recording = self._recording or [], None
            changes = dataclasses.replace(
                fresh, generation=self._state.generation).changes()
            changes.carry_tombstones(self._state.tombstones,
                                     since=self._read_since)
            self._read_since = self._reading_since or self._read_since
            for event in recorded:
                self._apply_event(changes, event)
            # A swap is a change even if the replay changed nothing.
            changes.count += 1
            self._state = changes.state()
            self.last_resync = time.time()
        self._ready.set()
        LOG.info('%s model resynced: %s, generation %d (%d notifications '
                 'replayed)', self.name, self._state.summary(),
                 self._state.generation, len(recorded))

    def abort_resync(self):
        with self._lock:
            self._recording = None
