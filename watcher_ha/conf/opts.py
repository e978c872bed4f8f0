"""Options listed for oslo-config-generator (namespace ``watcher_ha``)."""

from oslo_db import options as db_options

from watcher_ha.conf import api
from watcher_ha.conf import database
from watcher_ha.conf import default
from watcher_ha.conf import messaging


def list_opts():
    return [
        ('DEFAULT', default.list_opts()),
        (api.GROUP, api.list_opts()),
    ]


def set_defaults(conf=None):
    """Defaults we impose on library options, shown in the sample file."""
    from watcher_ha.conf import CONF
    conf = conf or CONF
    db_options.set_defaults(conf, connection=database.default_connection())
    messaging.set_defaults()
