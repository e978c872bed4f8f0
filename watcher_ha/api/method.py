"""``expose``: the one wrapper every API handler goes through.

It negotiates the microversion, runs the handler, renders its result as
JSON with the right status, and turns every error into Watcher's error
body. Handlers therefore hold no try/except of their own.
"""

import functools
import inspect
import json
import logging

import microversion_parse
import webob
from oslo_db import exception as db_exc

from watcher_ha.api import errors
from watcher_ha.api import microversion
from watcher_ha.api import request
from watcher_ha.common import exception
from watcher_ha.db import readiness

LOG = logging.getLogger(__name__)

JSON = 'application/json'


def expose(status_code=200, min_version=None, takes_query=True):
    """Expose a controller method as a JSON API handler.

    The method is called as ``method(call, *path_arguments)`` (``call``: a
    request.Call); the handler it becomes is called by the router as
    ``handler(req, params, args)``: the webob request, the query
    parameters, the path's arguments. Its ``arguments`` are the names of
    the path arguments the method takes.

    :param status_code: status of a successful answer; 202 and 204 answers
        have no body.
    :param min_version: the first microversion serving this handler;
        earlier versions get 406.
    :param takes_query: False for a handler that reads no query
        parameter, which then does not check them either.
    """
    minimum = (microversion_parse.parse_version_string(min_version)
               if min_version else None)

    def decorator(func):
        arguments = tuple(list(inspect.signature(func).parameters)[2:])

        @functools.wraps(func)
        def handler(self, req, params, args):
            if not takes_query:
                params = {}
            response = webob.Response()
            response.headers.update(microversion.range_headers())
            try:
                version = microversion.parse(req.headers)
                extension = microversion.parse_extension(req.headers)
            except microversion.VersionNotAcceptable as err:
                return _render(response, err.code,
                               errors.http_body(err.code, err.message))
            except exception.WatcherHAError as err:
                return _render(response, err.code,
                               errors.fault_body(err.code, err.message))
            requested = microversion.Requested(
                version, extension or microversion.MIN_EXTENSION)
            response.headers[microversion.HEADER] = (
                microversion.version_header(version, extension))
            call = request.Call(req, params, requested)
            try:
                if minimum is not None and version < minimum:
                    raise exception.NotAcceptable()
                if len(args) < len(arguments):
                    raise exception.MissingArgument(
                        name=arguments[len(args)])
                _refuse_nul(args, params)
                result = func(self, call, *args)
                response.headers.update(call.headers)
            except db_exc.DBDataError:
                # MySQL (strict mode) and PostgreSQL refuse a value too
                # long or out of range for its column; SQLite stores it.
                err = exception.ValueOutOfRange()
                return _render(response, err.code,
                               errors.fault_body(err.code, err.message))

            except exception.WatcherHAError as err:
                if err.code >= 500:
                    LOG.error('%s %s failed: %s', req.method, req.path,
                              err.message)
                response.headers.update(err.headers())
                return _render(response, err.code,
                               errors.fault_body(err.code, err.message))
            except Exception as unexpected:  # noqa: BLE001
                err = readiness.unavailable(unexpected)
                if err is not None:
                    LOG.warning('%s %s: %s (%s)', req.method, req.path,
                                err.message, unexpected)
                    return _render(response, err.code,
                                   errors.fault_body(err.code, err.message))
                LOG.exception('Unexpected error in %s %s', req.method,
                              req.path)
                return _render(response, 500, errors.fault_body(
                    500, 'An unexpected error occurred; the API log has '
                         'the details under this request ID.'))
            if status_code in (202, 204) or result is None:
                # A 200 without a body is a 204, as Watcher answers it.
                return _render(response, 204 if status_code == 200
                               else status_code, b'')
            return _render(response, status_code, json.dumps(result).encode())
        handler.arguments = arguments
        return handler
    return decorator


def _refuse_nul(args, params):
    """PostgreSQL cannot store or compare NUL characters: refuse them in
    path segments and query values rather than fail in the database."""
    for value in list(args) + list(params.values()):
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and '\x00' in v for v in values):
            raise exception.InvalidNUL()


def _render(response, status, body):
    response.status = status
    if body:
        response.content_type = 'application/json'
        response.charset = None
    else:
        response.content_type = None
    response.body = body
    return response
