"""keystonemiddleware auth_token, except on the public version documents."""

import re

from keystonemiddleware import auth_token

# The version documents let clients discover the API before they log in.
PUBLIC_ROUTES = re.compile(r'^/(v1/?)?$')
WEBHOOK_ROUTES = re.compile(r'^/(v1/)?webhooks/[^/]+/?$')


class AuthTokenMiddleware(auth_token.AuthProtocol):

    def __init__(self, app, conf, public_webhooks=False):
        self._unauthenticated_app = app
        self._public_webhooks = public_webhooks
        super().__init__(app, {'oslo_config_config': conf})

    def _is_public(self, path):
        return bool(PUBLIC_ROUTES.match(path) or (
            self._public_webhooks and WEBHOOK_ROUTES.match(path)))

    def __call__(self, environ, start_response):
        if self._is_public(environ.get('PATH_INFO', '')):
            return self._unauthenticated_app(environ, start_response)
        return super().__call__(environ, start_response)
