"""Configuration: every option group registers itself here, once."""

from oslo_config import cfg

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

CONF = cfg.CONF


def register_opts(conf):
    default.register_opts(conf)
    api.register_opts(conf)
    applier.register_opts(conf)
    clients.register_opts(conf)
    collectors.register_opts(conf)
    coordination.register_opts(conf)
    decision_engine.register_opts(conf)
    instance_ha.register_opts(conf)
    ironic.register_opts(conf)
    planner.register_opts(conf)
    strategies.register_opts(conf)
    database.register_opts(conf)
    datasources.register_opts(conf)
    prometheus_client.register_opts(conf)
    aetos_client.register_opts(conf)
    gnocchi_client.register_opts(conf)
    messaging.register_opts(conf)
    metrics.register_opts(conf)
    healthcheck.register_opts(conf)
    middleware.register_opts(conf)
    simulator.register_opts(conf)
    watcher_clients_auth.register_opts(conf)


register_opts(CONF)
