"""Build the WSGI application: pecan inside, middleware around it."""

import sys

import pecan
import webob
from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id

from watcher_ha.api import access_log
from watcher_ha.api import auth
from watcher_ha.api import body_limit
from watcher_ha.api import errors
from watcher_ha.api import hooks
from watcher_ha.api import pecan_speedups
from watcher_ha.api import request_metrics
from watcher_ha.api.instance_ha import app as instance_ha_app
from watcher_ha.service import healthcheck

CONF = cfg.CONF


class Request(pecan.Request):
    """Pecan's request, minus pecan's own reading of the body.

    Handlers read JSON bodies themselves (``request.json_body``) and answer
    Watcher's 400 when they are not JSON. Pecan would also parse the body
    to turn its keys (or a form's fields) into handler arguments, and a
    body it could not parse there (nested too deep, an unknown charset, a
    multipart form without boundary) escaped the app as a 500.
    """

    # Never copy a body to a temporary file: handlers read it whole into
    # memory anyway, and it is capped (api/body_limit.py). A chunked body
    # cut off at the cap mid-copy also left that file open.
    request_body_tempfile_limit = sys.maxsize

    @property
    def json(self):
        return {}

    @property
    def POST(self):
        return webob.multidict.NoVars('the API reads JSON bodies only')


class Mount:
    """Send the requests under ``prefix`` to ``app`` (the instance-ha
    API), with the prefix moved to SCRIPT_NAME; the others to
    ``default`` (the Watcher API)."""

    def __init__(self, default, prefix, app):
        self.default = default
        self.prefix = prefix
        self.app = app

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if path == self.prefix or path.startswith(self.prefix + '/'):
            environ['SCRIPT_NAME'] = (environ.get('SCRIPT_NAME', '')
                                      + self.prefix)
            environ['PATH_INFO'] = path[len(self.prefix):]
            return self.app(environ, start_response)
        return self.default(environ, start_response)


def setup_app(conf=None):
    conf = conf or CONF
    pecan_speedups.install()
    app = pecan.make_app(
        'watcher_ha.api.controllers.root.RootController',
        hooks=[hooks.JSONOnlyHook(), hooks.ContextHook()],
        request_cls=Request,
        # Resource names may contain dots: never strip ".json" suffixes.
        guess_content_type_from_ext=False,
        force_canonical=False,
        debug=False,
        logging=False,
    )
    app = errors.ErrorFormatMiddleware(app)
    prefix = conf.instance_ha.api_path_prefix
    app = Mount(app, prefix, instance_ha_app.setup_app(conf))
    app = access_log.AccessLogMiddleware(app)
    if conf.auth_strategy == 'keystone':
        app = auth.AuthTokenMiddleware(
            app, conf, public_webhooks=not conf.api.enable_webhooks_auth,
            public_prefix=prefix)
    # Outside keystonemiddleware: load balancers probe without a token.
    app = Mount(app, healthcheck.PATH, healthcheck.application(conf))
    app = body_limit.BodySizeLimit(app, conf)
    if conf.metrics.enabled:
        app = request_metrics.RequestMetrics(app, conf)
    app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    app = cors.CORS(app, conf)
    app = request_id.RequestId(app)
    return app
