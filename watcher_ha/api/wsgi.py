"""WSGI entry point for uwsgi, gunicorn or mod_wsgi.

    gunicorn 'watcher_ha.api.wsgi:application'

The configuration is read from ``WATCHER_HA_CONFIG_FILE`` (default
/etc/watcher-ha/watcher-ha.conf).
"""

import os

from watcher_ha.common import service


def init_application():
    config_file = os.environ.get('WATCHER_HA_CONFIG_FILE',
                                 '/etc/watcher-ha/watcher-ha.conf')
    args = ['--config-file', config_file] if os.path.exists(
        config_file) else []
    conf = service.prepare_service(args, program='watcher-ha-api')
    from watcher_ha.db import migration
    # Refused at load, saying what to run: the server's log shows why.
    migration.check_current()
    from watcher_ha.api import app
    return app.setup_app(conf)


def __getattr__(name):
    # Built on first access so that importing this module has no effect.
    if name == 'application':
        global application
        application = init_application()
        return application
    raise AttributeError(name)
