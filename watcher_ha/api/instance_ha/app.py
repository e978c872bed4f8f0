"""The instance-ha API (Masakari API v1, microversions 1.0 to 1.3) as a
WSGI app: a route table, one funnel for errors, Masakari's wire format.

watcher-ha-api serves it under ``[instance_ha] api_path_prefix``
(watcher_ha/api/app.py), behind the same middleware as the Watcher API
(request ID, CORS, proxy headers, body size limit, keystonemiddleware).
Paths here are relative to that prefix: a keystone endpoint of service
type ``instance-ha`` is ``<API URL>/instance-ha/v1/%(project_id)s``.
"""

import json
import os

import webob
import webob.dec
from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import opts as healthcheck_opts

from watcher_ha.api import request as api_request
from watcher_ha.api import routing
from watcher_ha.api.instance_ha import hosts
from watcher_ha.api.instance_ha import notifications
from watcher_ha.api.instance_ha import segments
from watcher_ha.api.instance_ha import versions
from watcher_ha.api.instance_ha import vmoves
from watcher_ha.common import context as watcher_context
from watcher_ha.common import exception
from watcher_ha.db import readiness

LOG = log.getLogger(__name__)

SEGMENT = '/segments/{segment_id}'
HOST = SEGMENT + '/hosts/{host_id}'
NOTIFICATION = '/notifications/{notification_id}'

# (method, path below /v1, handler). Every path is served with and
# without a project ID after /v1, as Masakari's endpoints carry one.
ROUTES = (
    ('GET', '/segments', segments.index),
    ('POST', '/segments', segments.create),
    ('GET', SEGMENT, segments.show),
    ('PUT', SEGMENT, segments.update),
    ('DELETE', SEGMENT, segments.delete),
    ('GET', SEGMENT + '/hosts', hosts.index),
    ('POST', SEGMENT + '/hosts', hosts.create),
    ('GET', HOST, hosts.show),
    ('PUT', HOST, hosts.update),
    ('DELETE', HOST, hosts.delete),
    ('GET', '/notifications', notifications.index),
    ('POST', '/notifications', notifications.create),
    ('GET', NOTIFICATION, notifications.show),
    ('GET', NOTIFICATION + '/vmoves', vmoves.index),
    ('GET', NOTIFICATION + '/vmoves/{vmove_id}', vmoves.show),
)

# HTTP status -> the key Masakari's error bodies name the fault with.
FAULT_NAMES = {400: 'badRequest', 401: 'unauthorized', 403: 'forbidden',
               404: 'itemNotFound', 405: 'badMethod',
               409: 'conflictingRequest', 413: 'overLimit',
               415: 'badMediaType', 429: 'overLimit',
               501: 'notImplemented', 503: 'serviceUnavailable'}

PROJECT_ID = '[0-9a-fA-F-]+'


def fault(status, message, headers=None):
    resp = webob.Response(status=status, headers=headers or {})
    resp.content_type = 'application/json'
    resp.charset = 'UTF-8'
    resp.text = json.dumps({FAULT_NAMES.get(status, 'masakariFault'): {
        'code': status, 'message': message}})
    return resp


def reply(status, body, headers=None):
    resp = webob.Response(status=status, headers=headers or {})
    resp.content_type = 'application/json'
    resp.charset = None
    if body is not None:
        resp.body = json.dumps(body).encode()
    return resp


def not_found_route():
    # What Masakari's router answers for a path or method it has no
    # route for: webob's own 404, not a Masakari fault, and without a
    # version header.
    resp = reply(404, {'message': 'The resource could not be found.<br />'
                                  '<br />\n\n\n',
                       'code': '404 Not Found', 'title': 'Not Found'})
    resp.unversioned = True
    return resp


class Call:
    """One request as a handler sees it."""

    def __init__(self, req, version, auth_strategy):
        self.req = req
        self.version = version
        self.params = req.GET
        self.context = _context(req, auth_strategy)

    def json_body(self):
        if not self.req.body:
            return None
        if self.req.content_type != 'application/json':
            raise UnsupportedMediaType()
        try:
            return api_request.parse_json(self.req.body)
        except exception.JSONTooDeep:
            raise
        except exception.InvalidJSON:
            raise exception.Invalid('Malformed request body')


class UnsupportedMediaType(exception.WatcherHAError):
    code = 415
    error_code = 'unsupported_media_type'
    msg_fmt = 'Unsupported Content-Type'


class ProjectMismatch(exception.Invalid):
    error_code = 'project_mismatch'
    msg_fmt = ("Malformed request URL: URL's project_id '%(url)s' doesn't "
               "match Context's project_id '%(context)s'")


def _context(req, auth_strategy):
    if auth_strategy == 'keystone':
        return watcher_context.RequestContext.from_environ(req.environ)
    # No authentication: an administrator, of the project the request
    # names (as Masakari's noauth2 does).
    return watcher_context.RequestContext(
        is_admin=True, roles=['admin'], overwrite=False,
        project_id=req.headers.get('X-Project-Id'),
        user_id=req.headers.get('X-User-Id'))


def _refuse_nul(req, matched):
    values = list(matched.values()) + list(req.GET.values())
    if any('\x00' in value for value in values):
        raise exception.InvalidNUL()


def _masakari_healthcheck(disable_file):
    """Masakari's: healthy unless the file exists, which lets an operator
    take one API out of a load balancer's rotation.

    Its settings are a configuration of its own: given them as a dict,
    oslo.middleware would write them into the process's [healthcheck]
    options, which the Watcher API's /healthcheck reads
    (watcher_ha/service/healthcheck.py).
    """
    conf = cfg.ConfigOpts()
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, group='healthcheck')
    conf.register_opts(healthcheck_opts.DISABLE_BY_FILE_OPTS,
                       group='healthcheck')
    conf.set_override('backends', ['disable_by_file'], group='healthcheck')
    conf.set_override('disable_by_file_path', disable_file,
                      group='healthcheck')
    return healthcheck.Healthcheck(None, conf)


class InstanceHAApp:

    def __init__(self, auth_strategy, disable_file):
        self.auth_strategy = auth_strategy
        self.table = routing.Table(
            ROUTES, prefixes=('/v1', '/v1/{project_id}'),
            requirements={'project_id': PROJECT_ID})
        self.healthcheck = _masakari_healthcheck(disable_file)

    @webob.dec.wsgify
    def __call__(self, req):
        path = req.path_info
        base = req.application_url
        if path == '/healthcheck':
            return req.get_response(self.healthcheck)
        if path in ('', '/'):
            return reply(200, versions.versions_document(base))
        if path != '/v1' and not path.startswith('/v1/'):
            return reply(300, versions.choices_document(base, path))
        try:
            version = versions.negotiate(req.headers)
        except versions.VersionNotSupported as err:
            return fault(err.code, err.message,
                         {'Vary': 'OpenStack-API-Version'})
        except exception.WatcherHAError as err:
            return fault(err.code, err.message)
        resp = self._dispatch(req, version, base)
        if not getattr(resp, 'unversioned', False):
            resp.headers.update(versions.response_headers(version))
        return resp

    def _dispatch(self, req, version, base):
        path = req.path_info
        if path in ('/v1', '/v1/', '/v1/versions/v1.0'):
            return reply(200, versions.version_document(base))
        if path in ('/v1/versions', '/v1/versions/'):
            return fault(405, "The request method: '%s' with action: "
                              "'index' is not allowed on this resource"
                         % req.method)
        found = self.table.match(req.method, path)
        if found is None:
            return not_found_route()
        handler, match = found
        try:
            _refuse_nul(req, match)
            call = Call(req, version, self.auth_strategy)
            project_id = match.pop('project_id', None)
            if project_id is not None and project_id != (
                    call.context.project_id):
                raise ProjectMismatch(url=project_id,
                                      context=call.context.project_id)
            status, body = handler(call, **match)
        except db_exc.DBDataError:
            # MySQL (strict mode) and PostgreSQL refuse a value too long
            # or out of range for its column.
            err = exception.ValueOutOfRange()
            return fault(err.code, err.message)
        except exception.WatcherHAError as err:
            if err.code >= 500:
                LOG.error('%s %s failed: %s', req.method, req.path,
                          err.message)
            return fault(err.code, err.message, err.headers())
        except Exception as unexpected:  # noqa: BLE001
            err = readiness.unavailable(unexpected)
            if err is not None:
                LOG.warning('%s %s: %s (%s)', req.method, req.path,
                            err.message, unexpected)
                return fault(err.code, err.message)
            LOG.exception('Unexpected error in %s %s', req.method,
                          req.path)
            return fault(500, 'An unexpected error occurred; the API log '
                              'has the details under this request ID.')
        return reply(status, body)


def setup_app(conf):
    return InstanceHAApp(
        conf.auth_strategy,
        os.path.join(conf.state_path, 'instance-ha-api-disabled'))
