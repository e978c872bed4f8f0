"""How long a daemon takes to handle each RPC method it serves, and how
many of them raise: the endpoints oslo.messaging dispatches to, wrapped.
"""

import functools
import time

import prometheus_client

HANDLING_SECONDS = prometheus_client.Histogram(
    'watcher_ha_rpc_handling_duration_seconds',
    'Time a daemon took to handle an RPC message, by method.',
    ['method'])
ERRORS = prometheus_client.Counter(
    'watcher_ha_rpc_errors',
    'RPC messages whose handler raised, by method.',
    ['method'])


class TimedEndpoint:
    """``endpoint``, whose public methods are timed. oslo.messaging finds
    methods (and the optional ``target``) with getattr, so it sees the
    endpoint's own set."""

    def __init__(self, endpoint):
        self._endpoint = endpoint
        # Series at zero from the start (an error rate of 0, not none).
        for name in dir(endpoint):
            if not name.startswith('_') and callable(getattr(endpoint,
                                                             name)):
                ERRORS.labels(name)
                HANDLING_SECONDS.labels(name)

    def __getattr__(self, name):
        found = getattr(self._endpoint, name)
        if name.startswith('_') or not callable(found):
            return found
        return _timed(name, found)


def _timed(name, handler):
    @functools.wraps(handler)
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return handler(*args, **kwargs)
        except Exception:
            ERRORS.labels(name).inc()
            raise
        finally:
            HANDLING_SECONDS.labels(name).observe(
                time.perf_counter() - started)
    return timed


def timed(endpoints):
    return [TimedEndpoint(endpoint) for endpoint in endpoints]
