"""[healthcheck] options come from oslo.middleware (``/healthcheck`` of
the API, and of the decision engine and the applier on their metrics
port); we only choose the default backends.

Each backend (watcher_ha/service/healthcheck.py) answers 503, naming its
service, while that service cannot be reached: ``watcher_ha_database``
the database, ``watcher_ha_messaging`` the message bus,
``watcher_ha_coordination`` the coordination backend. A daemon that
cannot reach one of them cannot do its work, and a load balancer or a
monitoring system should know. Add ``disable_by_file`` (and set
``disable_by_file_path``) to take one API out of rotation by hand.
"""

from oslo_config import cfg
from oslo_middleware.healthcheck import opts

GROUP = 'healthcheck'
DEFAULT_BACKENDS = ['watcher_ha_database', 'watcher_ha_messaging',
                    'watcher_ha_coordination']


def set_defaults():
    # On the option objects themselves, so oslo-config-generator shows it.
    cfg.set_defaults(opts.HEALTHCHECK_OPTS, backends=DEFAULT_BACKENDS)


def register_opts(conf):
    set_defaults()
    conf.register_opts(opts.HEALTHCHECK_OPTS, group=GROUP)
    conf.register_opts(opts.DISABLE_BY_FILE_OPTS, group=GROUP)
