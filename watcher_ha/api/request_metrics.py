"""Requests to the API counted and timed by method, route and status.

The route is the request's path with every segment that is not a word of
the API's routes (a UUID, a name, a project ID) replaced by ``{id}``:
``/v1/audits/{id}``, ``/instance-ha/v1/{id}/segments/{id}/hosts``. The
words are read from the routes themselves (the fixed segments of both
APIs' route tables), so a label takes a bounded number of values whatever
clients send.
"""

import time

import prometheus_client

from watcher_ha.api import routing
from watcher_ha.api.controllers import root
from watcher_ha.api.instance_ha import app as instance_ha_app

REQUESTS = prometheus_client.Counter(
    'watcher_ha_api_requests',
    'Requests the API answered, by method, route and status code.',
    ['method', 'route', 'status'])
DURATION_SECONDS = prometheus_client.Histogram(
    'watcher_ha_api_request_duration_seconds',
    'Time the API took to answer a request, by method and route.',
    ['method', 'route'])

METHODS = frozenset(('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE',
                     'OPTIONS'))
IDENTIFIER = '{id}'
# Deeper paths than any route are one route: no label value per depth.
MAX_SEGMENTS = 8
TOO_DEEP = '/{too_deep}'


def _instance_ha_words(prefix):
    words = {'v1', 'versions', 'healthcheck'}
    words.update(segment for segment in prefix.split('/') if segment)
    return words | routing.Table(instance_ha_app.ROUTES).words()


def route_words(conf):
    return frozenset(routing.Table(root.ROUTES).words()
                     | _instance_ha_words(conf.instance_ha.api_path_prefix)
                     | {'healthcheck'})


def route(path, words):
    """``path`` as a route template (see the module's docstring)."""
    segments = [segment for segment in path.split('/') if segment]
    if len(segments) > MAX_SEGMENTS:
        return TOO_DEEP
    return '/' + '/'.join(segment if segment in words else IDENTIFIER
                          for segment in segments)


class RequestMetrics:
    """WSGI middleware: counts and times every request ``app`` answers."""

    def __init__(self, app, conf):
        self.app = app
        self._words = route_words(conf)

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        method = environ.get('REQUEST_METHOD', '')
        method = method if method in METHODS else 'other'
        path = route(environ.get('PATH_INFO', ''), self._words)
        seen = {'status': '500'}

        def _start_response(status, headers, exc_info=None):
            seen['status'] = status.split(' ', 1)[0]
            return start_response(status, headers, exc_info)
        try:
            return self.app(environ, _start_response)
        finally:
            REQUESTS.labels(method, path, seen['status']).inc()
            DURATION_SECONDS.labels(method, path).observe(
                time.perf_counter() - started)
