"""The simulator's time. Every service of one simulator reads the time,
waits and sets its timers (an evacuation's steps, a host's boot, a
token's expiry, a silent service going down, a call nobody answers...)
through one clock, given to the Simulator (real time by default). A test
gives it a FakeClock instead and moves time on with ``advance``: the
timers due by then run at once, in the order they fall due, in the
test's own thread.
"""

import datetime
import heapq
import itertools
import threading
import time


class Clock:
    """Real time; each timer a daemon thread."""

    def now(self):
        """UTC, naive (as the simulator's records keep it)."""
        return datetime.datetime.now(datetime.timezone.utc).replace(
            tzinfo=None)

    def time(self):
        """Seconds since the epoch."""
        return time.time()

    def sleep(self, seconds):
        time.sleep(seconds)

    def later(self, seconds, func, *args):
        """Call ``func(*args)`` ``seconds`` from now, in another thread;
        returns the timer (``cancel()`` stops it)."""
        timer = threading.Timer(seconds, func, args)
        timer.daemon = True
        timer.start()
        return timer


# The clock of records made outside a simulator (a test's own Host).
REAL = Clock()


class ScaledClock(Clock):
    """Real time run ``speed`` times faster, from when the clock is made:
    a timer of s seconds fires s / speed seconds later, a wait of s
    seconds lasts s / speed, and the time read moves on ``speed`` seconds
    a second. For the what-if's replay at a speedup (cmd/replay.py),
    whose client scales its own waits alike; a cloud's timings are then
    kept, each N times sooner."""

    def __init__(self, speed=1.0):
        if speed <= 0:
            raise ValueError('a clock runs forwards: speed %s' % speed)
        self.speed = float(speed)
        self._began = time.monotonic()
        self._epoch = time.time()

    def elapsed(self):
        """Seconds of this clock since it was made."""
        return (time.monotonic() - self._began) * self.speed

    def now(self):
        return datetime.datetime.fromtimestamp(
            self.time(), datetime.timezone.utc).replace(tzinfo=None)

    def time(self):
        return self._epoch + self.elapsed()

    def sleep(self, seconds):
        time.sleep(seconds / self.speed)

    def later(self, seconds, func, *args):
        return super().later(seconds / self.speed, func, *args)


class FakeClock(Clock):
    """Time that stands still until ``advance`` moves it."""

    def __init__(self, start=datetime.datetime(2026, 1, 1)):
        self._now = start
        self._due = []            # heap of (when, order, _FakeTimer)
        self._order = itertools.count()
        self._lock = threading.RLock()

    def now(self):
        return self._now

    def time(self):
        return self._now.replace(tzinfo=datetime.timezone.utc).timestamp()

    def sleep(self, seconds):
        """A wait passes at once, moving the time on."""
        self.advance(seconds)

    def later(self, seconds, func, *args):
        timer = _FakeTimer(func, args)
        with self._lock:
            when = self._now + datetime.timedelta(seconds=seconds)
            heapq.heappush(self._due, (when, next(self._order), timer))
        return timer

    def advance(self, seconds):
        """Move the time ``seconds`` on, running each timer as its time
        comes (a timer it sets runs too, when due by the end)."""
        with self._lock:
            end = self._now + datetime.timedelta(seconds=seconds)
        while True:
            # A timer runs outside the clock's lock: it takes the cloud's,
            # whose holders may be setting timers meanwhile.
            with self._lock:
                if not self._due or self._due[0][0] > end:
                    self._now = max(self._now, end)
                    return
                when, _order, timer = heapq.heappop(self._due)
                self._now = max(self._now, when)
            timer.fire()

    @property
    def pending(self):
        """How many timers wait (cancelled ones aside)."""
        with self._lock:
            return sum(1 for *_, timer in self._due if not timer.cancelled)


class _FakeTimer:

    def __init__(self, func, args):
        self.func, self.args = func, args
        self.cancelled = False

    def cancel(self):
        self.cancelled = True

    def fire(self):
        if not self.cancelled:
            self.func(*self.args)
