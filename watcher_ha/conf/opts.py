"""Options listed for oslo-config-generator (namespace ``watcher_ha``)."""

from watcher_ha import conf
from watcher_ha.conf import clients
from watcher_ha.conf import collectors
from watcher_ha.conf import database
from watcher_ha.conf import healthcheck
from watcher_ha.conf import messaging
from watcher_ha.conf import middleware
from watcher_ha.conf import planner
from watcher_ha.conf import strategies
from watcher_ha.conf import watcher_clients_auth


def list_opts():
    own = [(conf.group_of(module) or 'DEFAULT', module.OPTS)
           for module in conf.OWN_GROUPS]
    return own + [
        (watcher_clients_auth.GROUP, watcher_clients_auth.list_opts()),
        *planner.list_opts(),
    ] + clients.list_opts() + collectors.list_opts() + (
        strategies.list_opts())


def set_defaults():
    """Defaults we impose on library options, shown in the sample file."""
    database.set_defaults()
    messaging.set_defaults()
    middleware.set_defaults()
    healthcheck.set_defaults()
