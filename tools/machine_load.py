"""How loaded the machine is, for the waits of the demo and the tests."""

import os


def slowdown():
    """How many times longer work takes now than on an idle machine: the
    processes runnable per core over the last minute (load average over
    cores), at least 1. On a 2-core machine at load 15-20: 8-10."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
