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
import pecan
from oslo_db import exception as db_exc

from watcher_ha.api import errors
from watcher_ha.api import microversion
from watcher_ha.common import exception
from watcher_ha.db import engine

LOG = logging.getLogger(__name__)

JSON = 'application/json'


def expose(status_code=200, min_version=None):
    """Expose a controller method as a JSON API handler.

    :param status_code: status of a successful answer; 202 and 204 answers
        have no body.
    :param min_version: the first microversion serving this handler;
        earlier versions get 406.
    """
    minimum = (microversion_parse.parse_version_string(min_version)
               if min_version else None)

    def decorator(func):
        signature = inspect.signature(func)

        @pecan.expose(content_type=JSON)
        @functools.wraps(func)
        def handler(*args, **kwargs):
            request, response = pecan.request, pecan.response
            response.headers.update(microversion.range_headers())
            try:
                version = microversion.parse(request.headers)
                extension = microversion.parse_extension(request.headers)
            except microversion.VersionNotAcceptable as err:
                return _render(response, err.code,
                               errors.http_body(err.code, err.message))
            except exception.WatcherHAError as err:
                return _render(response, err.code,
                               errors.fault_body(err.code, err.message))
            request.version = version
            request.requested = microversion.Requested(
                version, extension or microversion.MIN_EXTENSION)
            response.headers[microversion.HEADER] = (
                microversion.version_header(version, extension))
            try:
                if minimum is not None and version < minimum:
                    raise exception.NotAcceptable()
                _check_arguments(signature, args, kwargs)
                _refuse_nul(args, kwargs)
                result = func(*args, **kwargs)
            except db_exc.DBDataError:
                # MySQL (strict mode) and PostgreSQL refuse a value too
                # long or out of range for its column; SQLite stores it.
                err = exception.ValueOutOfRange()
                return _render(response, err.code,
                               errors.fault_body(err.code, err.message))

            except exception.WatcherHAError as err:
                if err.code >= 500:
                    LOG.error('%s %s failed: %s', request.method,
                              request.path, err.message)
                response.headers.update(err.headers())
                return _render(response, err.code,
                               errors.fault_body(err.code, err.message))
            except Exception as unexpected:  # noqa: BLE001
                if engine.lock_wait_timed_out(unexpected):
                    err = exception.DatabaseBusy(
                        seconds=engine.LOCK_WAIT_SECONDS)
                    LOG.warning('%s %s: %s', request.method, request.path,
                                err.message)
                    return _render(response, err.code,
                                   errors.fault_body(err.code, err.message))
                LOG.exception('Unexpected error in %s %s', request.method,
                              request.path)
                return _render(response, 500, errors.fault_body(
                    500, 'An unexpected error occurred; the API log has '
                         'the details under this request ID.'))
            if status_code in (202, 204) or result is None:
                return _render(response, status_code, b'')
            return _render(response, status_code, json.dumps(result).encode())
        return handler
    return decorator


def _check_arguments(signature, args, kwargs):
    """Refuse a path that does not fit the handler's arguments.

    Pecan calls a handler with the path segments it has: none for
    ``DELETE /v1/audits/``, one too many for ``GET /v1/audits/x/``. The
    call would fail with TypeError, a 500.
    """
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        positional = [p for p in signature.parameters.values()
                      if p.kind is p.POSITIONAL_OR_KEYWORD]
        missing = [p.name for p in positional[len(args):]
                   if p.default is p.empty and p.name not in kwargs]
        if missing:
            raise exception.MissingArgument(name=missing[0])
        raise exception.NotFound(
            'No resource is found at %s.' % pecan.request.path)


def _refuse_nul(args, kwargs):
    """PostgreSQL cannot store or compare NUL characters: refuse them in
    path segments and query values rather than fail in the database."""
    for value in list(args) + list(kwargs.values()):
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
