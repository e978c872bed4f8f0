"""Error bodies in Watcher API v1's wire format.

Errors raised by our handlers become ``{"error_message": "<JSON string of
{faultcode, faultstring, debuginfo}>"}``. Errors from routing (unknown
path, wrong method) and version negotiation carry ``{code, title,
description}`` inside ``error_message`` instead, as Watcher's do.
"""

import json

import webob
from oslo_log import log

LOG = log.getLogger(__name__)

FAULT_MARKER = b'{"error_message": '


def fault_body(status, message):
    fault = {'faultcode': 'Client' if status < 500 else 'Server',
             'faultstring': message,
             'debuginfo': None}
    return json.dumps({'error_message': json.dumps(fault)}).encode()


def http_body(status, description=''):
    title = webob.exc.status_map[status].title
    inner = {'code': status, 'title': title, 'description': description}
    return json.dumps({'error_message': json.dumps(inner)}).encode()


class ErrorFormatMiddleware:
    """Give every error response that is not already ours Watcher's shape.

    Our handlers render their own errors; what reaches here unrendered comes
    from routing (404, 405) or from a middleware, and gets the ``code``,
    ``title`` and ``description`` body.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        captured = {}

        def _start_response(status, headers, exc_info=None):
            captured['status'] = status
            captured['headers'] = headers
            captured['exc_info'] = exc_info
            return lambda data: captured.setdefault('written', []).append(
                data)

        try:
            app_iter = self.app(environ, _start_response)
        except Exception:
            # Handlers render their own errors (api/method.py); this is for
            # a failure in routing, which must still answer in
            # Watcher's format rather than with the server's bare 500.
            LOG.exception('Unexpected error outside the API handlers for '
                          '%s %s', environ.get('REQUEST_METHOD'),
                          environ.get('PATH_INFO'))
            body = fault_body(500, 'An unexpected error occurred; the API '
                                   'log has the details under this request '
                                   'ID.')
            start_response('500 Internal Server Error', [
                ('Content-Type', 'application/json'),
                ('Content-Length', str(len(body)))])
            return [body]
        code = int(captured['status'].split(' ', 1)[0])
        if code < 400:
            start_response(captured['status'], captured['headers'],
                           captured['exc_info'])
            written = captured.get('written')
            return _chain(written, app_iter) if written else app_iter
        try:
            body = b''.join(captured.get('written', []) + list(app_iter))
        finally:
            if hasattr(app_iter, 'close'):
                app_iter.close()
        if not body.startswith(FAULT_MARKER):
            body = http_body(code)
        headers = [(k, v) for k, v in captured['headers']
                   if k.lower() not in ('content-length', 'content-type')]
        headers += [('Content-Type', 'application/json'),
                    ('Content-Length', str(len(body)))]
        start_response(captured['status'], headers, captured['exc_info'])
        return [body]


def _chain(first, rest):
    yield from first
    yield from rest
