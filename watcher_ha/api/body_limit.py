"""A cap on request bodies, applied before anything reads one.

oslo.middleware's RequestBodySizeLimiter does the work: a body whose
Content-Length is over ``[oslo_middleware] max_request_body_size`` is
refused before the request goes any further, and a chunked body (no
Content-Length) stops being read at the limit (``request.body`` turns that
into the same 413).

It sits outside authentication on purpose. cheroot reads whatever a
handler left unread of a body before it answers on a kept-alive
connection, all of it at once: a 401 or 403 to a large body used to cost
its whole size in memory, several times over. A 413 closes the connection
instead, so the body is never read.
"""

from oslo_middleware import sizelimit

from watcher_ha.api import errors
from watcher_ha.common import exception

# Set in the environ once the limiter has let a request through: any 413
# after that is the application's own, already in Watcher's format.
PASSED = 'watcher_ha.body_limit.passed'


def too_large(conf):
    return exception.RequestBodyTooLarge(
        limit=conf.oslo_middleware.max_request_body_size)


class BodySizeLimit:
    """RequestBodySizeLimiter, its own 413 answered in Watcher's format."""

    def __init__(self, app, conf):
        self._app = app
        self._conf = conf
        self._limiter = sizelimit.RequestBodySizeLimiter(self._passed, conf)

    def _passed(self, environ, start_response):
        environ[PASSED] = True
        return self._app(environ, start_response)

    def __call__(self, environ, start_response):
        refused = []

        def _start_response(status, headers, exc_info=None):
            if environ.get(PASSED):
                return start_response(status, headers, exc_info)
            # The limiter answered by itself, and only ever with a 413.
            refused.append(status)
            return lambda data: None

        app_iter = self._limiter(environ, _start_response)
        if not refused:
            return app_iter
        if hasattr(app_iter, 'close'):
            app_iter.close()
        err = too_large(self._conf)
        body = errors.fault_body(err.code, err.message)
        start_response('413 Request Entity Too Large', [
            ('Content-Type', 'application/json'),
            ('Content-Length', str(len(body)))])
        return [body]
