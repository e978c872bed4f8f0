"""[healthcheck] options come from oslo.middleware (the API's
``/healthcheck``); we only choose the default backends.

``watcher_ha_database`` (watcher_ha/api/healthcheck.py) answers 503 while
the database cannot be reached: an API that cannot read it can answer
nothing but errors, and a load balancer should know. Add
``disable_by_file`` (and set ``disable_by_file_path``) to take one API out
of rotation by hand.
"""

from oslo_config import cfg
from oslo_middleware.healthcheck import opts

GROUP = 'healthcheck'
DEFAULT_BACKENDS = ['watcher_ha_database']


def set_defaults():
    # On the option objects themselves, so oslo-config-generator shows it.
    cfg.set_defaults(opts.HEALTHCHECK_OPTS, backends=DEFAULT_BACKENDS)


def register_opts(conf):
    set_defaults()
    conf.register_opts(opts.HEALTHCHECK_OPTS, group=GROUP)
    conf.register_opts(opts.DISABLE_BY_FILE_OPTS, group=GROUP)
