"""Pecan hooks: put the request context on every request."""

from oslo_config import cfg
from oslo_middleware import request_id
from pecan import hooks

from watcher_ha.common import context

CONF = cfg.CONF


class JSONOnlyHook(hooks.PecanHook):
    """Every answer is JSON, whatever the Accept header asks for.

    This skips pecan's content negotiation, which would answer 406 to a
    browser's Accept: text/html.
    """

    def on_route(self, state):
        state.request.pecan['content_type'] = 'application/json'


class ContextHook(hooks.PecanHook):
    """Build the RequestContext from keystonemiddleware's headers.

    With ``auth_strategy = noauth`` there are no identity headers and every
    request acts as an administrator.
    """

    def before(self, state):
        if CONF.auth_strategy == 'noauth':
            # Under the id the answer carries (X-Openstack-Request-Id),
            # as keystone's contexts are.
            state.request.context = context.admin_context(
                request_id=state.request.environ.get(
                    request_id.ENV_REQUEST_ID))
        else:
            state.request.context = context.RequestContext.from_environ(
                state.request.environ)
