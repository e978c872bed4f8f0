"""keystonemiddleware auth_token, except on the public version documents."""

import re

from keystonemiddleware import auth_token

# The version documents let clients discover the API before they log in.
PUBLIC_ROUTES = re.compile(r'^/(v1/?)?$')
WEBHOOK_ROUTES = re.compile(r'^/(v1/)?webhooks/[^/]+/?$')
# Identity headers that only keystonemiddleware may set. On the routes it
# skips, a client could forge them; they are removed there.
IDENTITY_HEADER_PREFIXES = (
    'HTTP_X_IDENTITY_STATUS', 'HTTP_X_SERVICE_', 'HTTP_X_DOMAIN_',
    'HTTP_X_PROJECT_', 'HTTP_X_TENANT', 'HTTP_X_USER', 'HTTP_X_ROLE',
    'HTTP_X_IS_ADMIN_PROJECT', 'HTTP_X_SYSTEM_SCOPE')


class AuthTokenMiddleware(auth_token.AuthProtocol):

    def __init__(self, app, conf, public_webhooks=False,
                 public_prefix=None):
        self._unauthenticated_app = app
        self._public_webhooks = public_webhooks
        # The instance-ha API's version documents, which openstacksdk
        # reads without a token before its first call, and its health
        # check.
        self._public_under_prefix = re.compile(
            '^%s(/|/v1/?|/healthcheck)?$' % re.escape(public_prefix)
        ) if public_prefix else None
        super().__init__(app, {'oslo_config_config': conf})

    def _is_public(self, path):
        return bool(PUBLIC_ROUTES.match(path) or (
            self._public_webhooks and WEBHOOK_ROUTES.match(path)) or (
            self._public_under_prefix is not None
            and self._public_under_prefix.match(path)))

    def __call__(self, environ, start_response):
        if self._is_public(environ.get('PATH_INFO', '')):
            for key in [k for k in environ
                        if k.startswith(IDENTITY_HEADER_PREFIXES)]:
                del environ[key]
            return self._unauthenticated_app(environ, start_response)
        return super().__call__(environ, start_response)
