"""Build the WSGI application: pecan inside, middleware around it."""

import pecan
from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id

from watcher_ha.api import auth
from watcher_ha.api import errors
from watcher_ha.api import hooks

CONF = cfg.CONF


def setup_app(conf=None):
    conf = conf or CONF
    app = pecan.make_app(
        'watcher_ha.api.controllers.root.RootController',
        hooks=[hooks.JSONOnlyHook(), hooks.ContextHook()],
        # Resource names may contain dots: never strip ".json" suffixes.
        guess_content_type_from_ext=False,
        force_canonical=False,
        debug=False,
        logging=False,
    )
    app = errors.ErrorFormatMiddleware(app)
    if conf.auth_strategy == 'keystone':
        app = auth.AuthTokenMiddleware(
            app, conf, public_webhooks=not conf.api.enable_webhooks_auth)
    app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    app = cors.CORS(app, conf)
    app = request_id.RequestId(app)
    return app
