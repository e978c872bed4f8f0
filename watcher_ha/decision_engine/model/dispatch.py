"""Notifications from the listener to the handlers that want them.

The listener thread only queues each notification; one worker applies them
in arrival order, so a burst never stalls consumption and the events of one
server keep their order. The queue is bounded: when it is full the listener
waits (the broker keeps the messages), so nothing is dropped and memory
stays bounded.
"""

import dataclasses
import queue
import re
import threading

from oslo_log import log

LOG = log.getLogger(__name__)

QUEUE_SIZE = 10000


@dataclasses.dataclass(frozen=True)
class Handler:
    """``handle(event)`` for notifications whose publisher id matches
    ``publisher`` (a regular expression) and whose type is in
    ``event_types`` (None: every type)."""
    name: str
    publisher: str
    event_types: frozenset | None
    handle: object

    def wants(self, event):
        return ((self.event_types is None
                 or event.event_type in self.event_types)
                and re.match(self.publisher, event.publisher_id) is not None)


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
        self._queue.put(event)

    def drain(self, timeout=None):
        """Wait until every queued event was handled (for tests)."""
        self._queue.join()

    def _run(self):
        while True:
            event = self._queue.get()
            try:
                if event is None:
                    return
                self.dispatch(event)
            finally:
                self._queue.task_done()

    def dispatch(self, event):
        for handler in self._handlers:
            if not handler.wants(event):
                continue
            try:
                handler.handle(event)
            except Exception:  # noqa: BLE001
                # One bad payload must not stop the others; the next
                # resync corrects whatever it should have changed.
                self.failed += 1
                LOG.exception('Handler %s failed on %s from %s',
                              handler.name, event.event_type,
                              event.publisher_id)
        self.dispatched += 1

    def stop(self):
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(5)
            self._thread = None
