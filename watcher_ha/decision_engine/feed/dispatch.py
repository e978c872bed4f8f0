"""Notifications from the listener to the handlers that want them.

The listener only queues what it receives, a batch at a time; one worker
hands each batch to the handlers in arrival order, so a burst never stalls
consumption and the events of one server keep their order. The queue is
bounded (QUEUE_SIZE batches): when it is full the listener's executor
thread waits and the batches behind it stay unacknowledged, so nothing is
dropped.
"""

import dataclasses
import queue
import re
import threading

from oslo_log import log

from watcher_ha.decision_engine.model import metrics

LOG = log.getLogger(__name__)

QUEUE_SIZE = 64


@dataclasses.dataclass(frozen=True)
class Handler:
    """``handle(event)`` for notifications whose publisher id matches
    ``publisher`` (a regular expression) and whose type is in
    ``event_types`` (None: every type).

    ``handle_many(events)``, if given, takes a whole batch of them in
    order as one change, all or nothing; when it raises, the dispatcher
    falls back to ``handle`` one event at a time, so that one bad payload
    costs only itself."""
    name: str
    publisher: str
    event_types: frozenset | None
    handle: object
    handle_many: object = None

    def __post_init__(self):
        object.__setattr__(self, '_publisher', re.compile(self.publisher))

    def wants(self, event):
        return ((self.event_types is None
                 or event.event_type in self.event_types)
                and self._publisher.match(event.publisher_id) is not None)


class Dispatcher:

    def __init__(self, handlers=()):
        self._handlers = list(handlers)
        self._queue = queue.Queue(QUEUE_SIZE)
        self._thread = None
        self.dispatched = 0
        self.failed = 0

    def register(self, handler):
        self._handlers.append(handler)

    def start(self):
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='notification-dispatch')
        self._thread.start()

    def submit(self, event):
        """Queue ``event`` for the handlers (blocks while the queue is
        full)."""
        self._queue.put([event])

    def submit_many(self, events):
        """Queue ``events``, in order, as one batch."""
        if events:
            self._queue.put(list(events))

    def drain(self, timeout=None):
        """Wait until every queued event was handled (for tests)."""
        self._queue.join()

    def _run(self):
        while True:
            batch = self._queue.get()
            try:
                if batch is None:
                    return
                self.dispatch_many(batch)
            finally:
                self._queue.task_done()

    def dispatch_many(self, events):
        for handler in self._handlers:
            wanted = [event for event in events if handler.wants(event)]
            if not wanted:
                continue
            if handler.handle_many is not None and len(wanted) > 1:
                try:
                    handler.handle_many(wanted)
                    continue
                except Exception:  # noqa: BLE001
                    LOG.debug('Handler %s failed on a batch of %d; '
                              'applying them one by one', handler.name,
                              len(wanted), exc_info=True)
            for event in wanted:
                self._handle(handler, event)
        self.dispatched += len(events)
        metrics.dispatched(events)

    def _handle(self, handler, event):
        try:
            handler.handle(event)
        except Exception:  # noqa: BLE001
            # One bad payload must not stop the others; the next resync
            # corrects whatever it should have changed.
            self.failed += 1
            metrics.HANDLER_ERRORS.inc()
            LOG.exception('Handler %s failed on %s from %s', handler.name,
                          event.event_type, event.publisher_id)

    def stop(self):
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(5)
            self._thread = None
