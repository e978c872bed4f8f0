"""Reading a request: its context, version, JSON body, paging and links.

A handler is given its request as a ``Call``; nothing here reads a
thread-local request.
"""

import dataclasses
import json
import sys
import urllib.parse

import webob
from oslo_config import cfg
from oslo_middleware import request_id
from oslo_utils import strutils
from oslo_utils import uuidutils

from watcher_ha.api import body_limit
from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception

CONF = cfg.CONF

SORT_DIRS = ('asc', 'desc')


class Request(webob.Request):

    # Never copy a body to a temporary file: handlers read it whole into
    # memory anyway, and it is capped (api/body_limit.py). A chunked body
    # cut off at the cap mid-copy also left that file open.
    request_body_tempfile_limit = sys.maxsize


def request_context(environ):
    """The RequestContext of keystonemiddleware's headers in ``environ``.

    With ``auth_strategy = noauth`` there are no identity headers and every
    request acts as an administrator, under the id the answer carries
    (X-Openstack-Request-Id), as keystone's contexts are.
    """
    if CONF.auth_strategy == 'noauth':
        return watcher_context.admin_context(
            request_id=environ.get(request_id.ENV_REQUEST_ID))
    return watcher_context.RequestContext.from_environ(environ)


class Call:
    """One request as a Watcher API handler sees it.

    ``params``: the query string's parameters, a list for a repeated one;
    ``headers``: headers to add to the answer (Location).
    """

    def __init__(self, req, params, requested):
        self.req = req
        self.params = params
        self.requested = requested       # microversion.Requested
        self.version = requested.api
        self.context = request_context(req.environ)
        self.headers = {}

    def version_at_least(self, text):
        """``text``: 'X.Y' (infra-optim) or 'watcher-ha X.Y'."""
        return self.requested.at_least(text)

    def raw_body(self):
        """The raw request body, or 413 past the body size cap.

        A body without Content-Length passes the cap (api/body_limit.py)
        unchecked; oslo.middleware's limiter then stops reading it at the
        limit by raising its own HTTP error, answered here in our format.
        """
        try:
            return self.req.body
        except webob.exc.HTTPRequestEntityTooLarge:
            raise body_limit.too_large(CONF)

    def json_body(self):
        """The request body as parsed JSON, or 400 if it is not JSON."""
        return parse_json(self.raw_body())

    def base_url(self):
        """Scheme, host and port for links: [api] public_endpoint or the
        request's own (proxies' X-Forwarded-* honoured)."""
        return base_url(self.req)

    def links(self, resource, ident):
        base = self.base_url()
        return [{'href': '%s/v1/%s/%s' % (base, resource, ident),
                 'rel': 'self'},
                {'href': '%s/%s/%s' % (base, resource, ident),
                 'rel': 'bookmark'}]

    def next_link(self, path, paging, last_marker, extra_args=None):
        """The ``next`` URL of a full page, as Watcher builds it."""
        # Unlike Watcher, the filters stay in the link: following it must
        # not widen the listing.
        args = dict(extra_args or {})
        args.update(paging.next_args())
        query = ''.join('%s=%s&' % (k, urllib.parse.quote(str(v), safe=''))
                        for k, v in args.items() if v is not None)
        return '%s/v1/%s?%slimit=%d&marker=%s' % (
            self.base_url(), path, query, paging.limit, last_marker)


def base_url(req):
    """Scheme, host and port of ``req`` for links (see Call.base_url)."""
    environ = req.environ
    if 'watcher_ha.base_url' not in environ:
        environ['watcher_ha.base_url'] = (
            CONF.api.public_endpoint or req.host_url).rstrip('/')
    return environ['watcher_ha.base_url']


# No Watcher body nests more than a few levels; validating, copying or
# storing one nested some hundreds deep exhausts Python's recursion limit.
MAX_JSON_DEPTH = 64


def _refuse_constant(name):
    # NaN and Infinity are not JSON (RFC 8259); once stored they would
    # make our own answers invalid JSON.
    raise ValueError('%s is not a JSON value' % name)


def _finite(text):
    value = float(text)
    if value in (float('inf'), float('-inf')):
        raise ValueError('%s is out of range' % text)
    return value


def parse_json(raw):
    """``raw`` (bytes) as JSON: InvalidJSON if it is not JSON, with NaN or
    infinities, JSONTooDeep past MAX_JSON_DEPTH, InvalidNUL for a NUL
    character in any string."""
    try:
        body = json.loads(raw, parse_constant=_refuse_constant,
                          parse_float=_finite)
    except RecursionError:
        raise exception.JSONTooDeep(max=MAX_JSON_DEPTH)
    except (ValueError, UnicodeDecodeError):
        raise exception.InvalidJSON()
    _check_depth(body)
    return body


def _check_depth(body):
    """Refuse bodies nested too deep, and NUL characters in any string
    (PostgreSQL cannot store them)."""
    pending = [(body, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            if '\x00' in value:
                raise exception.InvalidNUL()
            continue
        if isinstance(value, dict):
            children = list(value.values()) + list(value)
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > MAX_JSON_DEPTH:
            raise exception.JSONTooDeep(max=MAX_JSON_DEPTH)
        pending.extend((child, depth + 1) for child in children)


def query_value(params, name):
    """One query parameter as a string (or None); repeats are refused."""
    value = params.get(name)
    if isinstance(value, list):
        raise exception.InvalidParameter(
            name=name, reason='give it at most once')
    return value


def bool_param(params, name, default=False):
    """A boolean query parameter (true/false, yes/no, 1/0, on/off);
    ``default`` when absent, 400 for another value."""
    text = query_value(params, name)
    if text is None:
        return default
    try:
        return strutils.bool_from_string(text, strict=True)
    except ValueError:
        raise exception.InvalidParameter(
            name=name, reason='give true or false, not %r' % text)


def refuse_unknown_params(params, known):
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise exception.Invalid(
            'Unknown query parameter(s): %s. Accepted: %s.'
            % (', '.join(unknown), ', '.join(sorted(known))))


@dataclasses.dataclass(frozen=True)
class Paging:
    limit: int
    marker: str | None
    sort_key: str
    sort_dir: str

    @property
    def sort(self):
        return ((self.sort_key, self.sort_dir),)

    def next_args(self):
        return {'sort_key': self.sort_key, 'sort_dir': self.sort_dir}


PAGING_PARAMS = ('marker', 'limit', 'sort_key', 'sort_dir')


def paging(params, sort_keys, marker_is_uuid=True):
    """Validate marker/limit/sort_key/sort_dir from the query string."""
    limit_text = query_value(params, 'limit')
    limit = CONF.api.max_limit
    if limit_text is not None:
        try:
            limit = int(limit_text)
        except ValueError:
            raise exception.InvalidParameter(
                name='limit', reason='%r is not an integer' % limit_text)
        if limit <= 0:
            raise exception.InvalidLimit()
        limit = min(limit, CONF.api.max_limit)
    sort_dir = query_value(params, 'sort_dir') or 'asc'
    if sort_dir not in SORT_DIRS:
        raise exception.InvalidSortDir(value=sort_dir)
    sort_key = query_value(params, 'sort_key') or 'id'
    if sort_key not in sort_keys:
        raise exception.InvalidSortKey(key=sort_key)
    marker = query_value(params, 'marker')
    if marker is not None:
        if marker_is_uuid and not uuidutils.is_uuid_like(marker):
            raise exception.InvalidUUID(uuid=marker)
        if not marker_is_uuid and not _is_int(marker):
            raise exception.InvalidIdentity(identity=marker)
    return Paging(limit=limit, marker=marker, sort_key=sort_key,
                  sort_dir=sort_dir)


def _is_int(text):
    # ASCII digits only, as db.query.View.ident_kind reads them.
    return text.isascii() and text.isdigit() and len(text) < 19


