"""Threads released at once against one database."""

import concurrent.futures
import threading


RACERS = 16


def race(func, racers=RACERS):
    """Run ``func`` in ``racers`` threads released at once; return the
    list of (result or exception)."""
    barrier = threading.Barrier(racers)

    def attempt(_):
        barrier.wait()
        try:
            return func()
        except Exception as err:   # noqa: BLE001 - collected for asserts
            return err

    with concurrent.futures.ThreadPoolExecutor(racers) as pool:
        return list(pool.map(attempt, range(racers)))
