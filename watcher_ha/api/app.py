"""Build the WSGI application: the two APIs' route tables inside,
middleware around them."""

from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id

from watcher_ha.api import access_log
from watcher_ha.api import auth
from watcher_ha.api import body_limit
from watcher_ha.api import errors
from watcher_ha.api import request_metrics
from watcher_ha.api.controllers import root
from watcher_ha.api.instance_ha import app as instance_ha_app
from watcher_ha.service import healthcheck

CONF = cfg.CONF


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
    app = errors.ErrorFormatMiddleware(root.WatcherAPI())
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
