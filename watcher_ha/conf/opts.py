"""Options listed for oslo-config-generator (namespace ``watcher_ha``)."""

from watcher_ha.conf import api
from watcher_ha.common import clients
from watcher_ha.conf import applier
from watcher_ha.conf import coordination
from watcher_ha.conf import database
from watcher_ha.conf import decision_engine
from watcher_ha.conf import default
from watcher_ha.conf import instance_ha
from watcher_ha.conf import ironic
from watcher_ha.conf import messaging
from watcher_ha.conf import middleware
from watcher_ha.conf import simulator
from watcher_ha.decision_engine.model.collector import base as \
    collector_base
from watcher_ha.decision_engine.planner import weight as weight_planner


def list_opts():
    return [
        ('DEFAULT', default.list_opts()),
        (api.GROUP, api.list_opts()),
        (decision_engine.GROUP, decision_engine.list_opts()),
        (applier.GROUP, applier.list_opts()),
        (coordination.GROUP, coordination.list_opts()),
        (instance_ha.GROUP, instance_ha.list_opts()),
        (ironic.GROUP, ironic.list_opts()),
        (simulator.GROUP, simulator.list_opts()),
        (weight_planner.GROUP, weight_planner.list_opts()),
        (collector_base.group_name('compute'), collector_base.COMMON_OPTS),
    ] + clients.list_opts()


def set_defaults():
    """Defaults we impose on library options, shown in the sample file."""
    database.set_defaults()
    messaging.set_defaults()
    middleware.set_defaults()
