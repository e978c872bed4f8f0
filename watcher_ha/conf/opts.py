"""Options listed for oslo-config-generator (namespace ``watcher_ha``)."""

from watcher_ha.conf import aetos_client
from watcher_ha.conf import api
from watcher_ha.conf import applier
from watcher_ha.conf import clients
from watcher_ha.conf import collectors
from watcher_ha.conf import coordination
from watcher_ha.conf import database
from watcher_ha.conf import datasources
from watcher_ha.conf import decision_engine
from watcher_ha.conf import default
from watcher_ha.conf import gnocchi_client
from watcher_ha.conf import healthcheck
from watcher_ha.conf import instance_ha
from watcher_ha.conf import ironic
from watcher_ha.conf import messaging
from watcher_ha.conf import metrics
from watcher_ha.conf import middleware
from watcher_ha.conf import planner
from watcher_ha.conf import prometheus_client
from watcher_ha.conf import simulator
from watcher_ha.conf import strategies
from watcher_ha.conf import watcher_clients_auth


def list_opts():
    return [
        ('DEFAULT', default.list_opts()),
        (api.GROUP, api.list_opts()),
        (decision_engine.GROUP, decision_engine.list_opts()),
        (datasources.GROUP, datasources.list_opts()),
        (prometheus_client.GROUP, prometheus_client.list_opts()),
        (aetos_client.GROUP, aetos_client.list_opts()),
        (gnocchi_client.GROUP, gnocchi_client.list_opts()),
        (applier.GROUP, applier.list_opts()),
        (coordination.GROUP, coordination.list_opts()),
        (instance_ha.GROUP, instance_ha.list_opts()),
        (ironic.GROUP, ironic.list_opts()),
        (simulator.GROUP, simulator.list_opts()),
        (metrics.GROUP, metrics.list_opts()),
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
