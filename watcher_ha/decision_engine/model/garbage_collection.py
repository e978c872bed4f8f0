"""How often CPython's cyclic garbage collector runs in a process that
holds data models.

A model of 1,000 hosts and 50,000 servers is over 100,000 long-lived
objects, and a burst of notifications allocates many short-lived ones (the
decoded payloads of a whole batch) beside them. At CPython's default pace,
a young collection every 700 allocations and a full one (about 140 ms over
such a model) every few thousand events, the collector took a third of an
engine's CPU while it drained a backlog over RabbitMQ, and that CPU came
out of the notification rate (doc/source/benchmarks.rst).

Collecting less often loses nothing here: the model holds no reference
cycles (frozen dataclasses, tuples, immutable maps), so its old elements
are freed by reference counting the moment they are replaced; what waits
longer is cyclic garbage made elsewhere, bounded by the threshold.
"""

import gc

from oslo_log import log

LOG = log.getLogger(__name__)


def pace(young_threshold):
    """Collect the young generation every ``young_threshold`` net
    allocations (0: leave CPython's default); the older generations keep
    their default ratios to it."""
    if not young_threshold:
        return
    young, middle, old = gc.get_threshold()
    if young != young_threshold:
        gc.set_threshold(young_threshold, middle, old)
        LOG.debug('Garbage collector: young generation every %d net '
                  'allocations (was %d)', young_threshold, young)
