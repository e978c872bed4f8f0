"""Tries of one datasource request, as ``[watcher_datasources]
query_max_retries`` and ``query_interval`` say (Watcher's options, read at
each request: they are mutable).

Only what may pass is tried again: the server unreachable, a timeout, a
5xx or 429 answer. A request the server refuses (4xx: a bad query, bad
credentials) fails at once, since sending it again gives the same
answer.
"""

import requests
import tenacity

from watcher_ha.decision_engine.datasources import base


class Transient(Exception):
    """A failure that may pass; the message says what happened."""


def transient_status(status):
    return status >= 500 or status == 429


def call(conf, what, request):
    """``request()``'s result, tried again while it raises Transient (or
    a requests connection error or timeout); DatasourceError naming
    ``what`` (the method and URL) and the last error when the tries run
    out."""
    options = conf.watcher_datasources
    tries = options.query_max_retries
    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(tries),
        wait=tenacity.wait_fixed(options.query_interval),
        retry=tenacity.retry_if_exception_type(
            (Transient, requests.ConnectionError, requests.Timeout)),
        reraise=True)
    try:
        return retrying(request)
    except (Transient, requests.ConnectionError, requests.Timeout) as err:
        raise base.DatasourceError('%s failed %d time(s): %s'
                                   % (what, tries, err)) from err
