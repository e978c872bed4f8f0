"""Waiting for decision engines' models to agree with the simulated
cloud, as the model-following tests do (compute and storage)."""

import contextlib
import time

import requests


def wait_until_agree(url, engines, timeout, cloud_state, model_state,
                     difference, every):
    """Until every engine's model, read by ``model_state(engine.model)``,
    equals the cloud at ``url`` read by ``cloud_state(url)``, looking
    every ``every`` s; after ``timeout`` s, AssertionError with what
    ``difference(expected, found)`` says of the first model that
    differs."""
    deadline = time.monotonic() + timeout
    while True:
        expected = cloud_state(url)
        found = [model_state(e.model) for e in engines]
        if all(f == expected for f in found):
            return
        if time.monotonic() > deadline:
            differing = next(f for f in found if f != expected)
            raise AssertionError(difference(expected, differing))
        time.sleep(every)


@contextlib.contextmanager
def notifications_dropped(url):
    """The simulator at ``url`` sends no notification in the block: the
    models miss what changes meanwhile, until a resync."""
    faults(url, drop_notifications=1.0)
    try:
        yield
    finally:
        faults(url, drop_notifications=0.0)


def faults(url, **injected):
    requests.put(url + '/simulator/faults', json=injected,
                 timeout=10).raise_for_status()
