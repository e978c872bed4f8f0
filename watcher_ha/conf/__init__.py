"""Configuration: every option group registers itself here, once."""

from oslo_config import cfg

from watcher_ha.conf import api
from watcher_ha.conf import database
from watcher_ha.conf import default
from watcher_ha.conf import messaging

CONF = cfg.CONF


def register_opts(conf):
    default.register_opts(conf)
    api.register_opts(conf)
    database.register_opts(conf)
    messaging.register_opts(conf)


register_opts(CONF)
