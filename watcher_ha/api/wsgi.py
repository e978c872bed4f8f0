"""WSGI entry point for uwsgi, gunicorn or mod_wsgi.

    gunicorn 'watcher_ha.api.wsgi:application'

The configuration is read from ``WATCHER_HA_CONFIG_FILE`` (default
/etc/watcher-ha/watcher-ha.conf); a file it names that does not exist
stops the load, saying so.
"""

import os

from watcher_ha.service import service


DEFAULT_CONFIG = '/etc/watcher-ha/watcher-ha.conf'


def init_application():
    named = os.environ.get('WATCHER_HA_CONFIG_FILE')
    if named is not None and not os.path.exists(named):
        # A mistyped path must not leave the API on built-in defaults.
        raise RuntimeError('WATCHER_HA_CONFIG_FILE names %s, which does not '
                           'exist: give the path of watcher-ha.conf, or '
                           'unset it to read %s' % (named, DEFAULT_CONFIG))
    config_file = named or DEFAULT_CONFIG
    args = ['--config-file', config_file] if os.path.exists(
        config_file) else []
    conf = service.prepare_service(args, program='watcher-ha-api')
    from watcher_ha.db import migration
    # Refused at load, saying what to run: the server's log shows why.
    migration.check_current()
    from watcher_ha.api import app
    wsgi_app = app.setup_app(conf)
    if conf.metrics.enabled:
        _serve_metrics(conf)
    return wsgi_app


def _serve_metrics(conf):
    """The API's metrics endpoint, served by the process that loads the
    app first (the server's master with gunicorn --preload, else the
    first worker to bind the port), with every worker's metrics: a WSGI
    server's workers are processes of their own (even one, beside its
    master), so the multiprocess directory is required
    (doc/source/metrics.rst)."""
    from watcher_ha.service import metrics_server
    from watcher_ha.db import state_metrics
    metrics_server.require_multiprocess_dir('under a WSGI server')
    metrics_server.serve(conf, conf.metrics.api_port,
                         [state_metrics.StateCollector()], shared=True)


def __getattr__(name):
    # Built on first access so that importing this module has no effect.
    if name == 'application':
        global application
        application = init_application()
        return application
    raise AttributeError(name)
