"""Configuration: every option group registers itself here, once.

A module of our own options declares ``OPTS`` and its ``GROUP`` (none:
[DEFAULT]); it is registered, and listed for oslo-config-generator
(conf/opts.py), from OWN_GROUPS, in the order the sample file shows them.
The modules that register more than a list of their own (keystoneauth's
options, a library's, one group per plugin) each have ``register_opts``.
"""

import contextlib

from oslo_config import cfg

from watcher_ha.conf import aetos_client
from watcher_ha.conf import api
from watcher_ha.conf import app_failover
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

OWN_GROUPS = (default, api, decision_engine, datasources, prometheus_client,
              aetos_client, gnocchi_client, applier, coordination,
              instance_ha, app_failover, ironic, simulator, metrics)
REGISTERING = (clients, collectors, planner, strategies, database,
               messaging, healthcheck, middleware, watcher_clients_auth)


def group_of(module):
    """The option group of a module of OWN_GROUPS (None: [DEFAULT])."""
    return getattr(module, 'GROUP', None)


def register_opts(conf):
    for module in OWN_GROUPS:
        if group_of(module) is not None:
            conf.register_group(group_of(module))
        conf.register_opts(module.OPTS, group=group_of(module))
    for module in REGISTERING:
        module.register_opts(conf)


register_opts(CONF)


@contextlib.contextmanager
def overridden(overrides, conf=CONF):
    """The options ``overrides`` ((group, option, value)...) set in
    ``conf`` while in the block, then as they were: an override made
    before is put back, none is cleared. For a process that borrows its
    own options for a while (the what-if's replay points this process's
    clients at a simulator); the daemons never do."""
    made = []
    try:
        for group, name, value in overrides:
            # oslo.config keeps one override per option and has no public
            # reader for it: its option info holds it (None: none).
            before = conf._get_opt_info(name, group).get('override')
            conf.set_override(name, value, group)
            made.append((group, name, before))
        yield conf
    finally:
        for group, name, before in reversed(made):
            if before is None:
                conf.clear_override(name, group)
            else:
                conf.set_override(name, before, group)
