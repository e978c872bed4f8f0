"""One INFO line per request: method, path, status, size and duration."""

import time

from oslo_log import log
from oslo_middleware import request_id

from watcher_ha.common import tracing

LOG = log.getLogger('watcher_ha.api.access')


class AccessLogMiddleware:

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        # Every line logged while the request is served (this one too)
        # carries its id, and none a previous request's of this thread.
        with tracing.working_on(environ.get(request_id.ENV_REQUEST_ID),
                                environ.get(request_id.GLOBAL_REQ_ID)):
            return self._served(environ, start_response)

    def _served(self, environ, start_response):
        started = time.monotonic()
        seen = {}

        def _start_response(status, headers, exc_info=None):
            seen['status'] = status.split(' ', 1)[0]
            seen['length'] = next((v for k, v in headers
                                   if k.lower() == 'content-length'), '-')
            return start_response(status, headers, exc_info)

        result = self.app(environ, _start_response)
        if LOG.isEnabledFor(log.INFO):
            query = environ.get('QUERY_STRING')
            LOG.info('%s "%s %s%s" status: %s len: %s time: %.4f',
                     environ.get('REMOTE_ADDR', '-'),
                     environ.get('REQUEST_METHOD'),
                     environ.get('PATH_INFO'), '?' + query if query else '',
                     seen.get('status'), seen.get('length'),
                     time.monotonic() - started)
        return result
