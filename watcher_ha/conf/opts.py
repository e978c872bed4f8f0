"""Options listed for oslo-config-generator (namespace ``watcher_ha``)."""

from watcher_ha.conf import api
from watcher_ha.conf import database
from watcher_ha.conf import default
from watcher_ha.conf import messaging


def list_opts():
    return [
        ('DEFAULT', default.list_opts()),
        (api.GROUP, api.list_opts()),
    ]


def set_defaults():
    """Defaults we impose on library options, shown in the sample file."""
    database.set_defaults()
    messaging.set_defaults()
