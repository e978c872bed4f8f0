"""[oslo_middleware] options come from oslo.middleware; we only choose the
request body size cap.

No Watcher request body comes near it: the largest, an audit or template
with its scope and parameters, are a few KB. oslo.middleware's own default
(112 KiB) would do too; a little more leaves room for large scopes.
"""

from oslo_config import cfg
from oslo_middleware import sizelimit

GROUP = 'oslo_middleware'
MAX_REQUEST_BODY_SIZE = 256 * 1024


def set_defaults():
    # On the option objects themselves, so oslo-config-generator shows it.
    cfg.set_defaults(sizelimit.OPTS,
                     max_request_body_size=MAX_REQUEST_BODY_SIZE)


def register_opts(conf):
    set_defaults()
    conf.register_opts(sizelimit.OPTS, group=GROUP)
