"""watcher-ha-api: the REST API, in ``[api] workers`` processes."""

import sys

from oslo_config import cfg
from oslo_service import service

from watcher_ha.api import app
from watcher_ha.common import daemon
from watcher_ha.common import service as watcher_service
from watcher_ha.common import wsgi_server

CONF = cfg.CONF

API_BINARY = 'watcher-ha-api'


def main(argv=None):
    conf = watcher_service.prepare_service(
        sys.argv[1:] if argv is None else argv, program='watcher-ha-api')
    watcher_service.check_schema()
    sock = wsgi_server.bind(conf.api.host, conf.api.port)
    server = wsgi_server.WSGIService(
        API_BINARY, lambda: app.setup_app(conf), sock, conf.api.threads,
        heartbeat=daemon.Heartbeat(API_BINARY))
    launcher = service.launch(conf, server, workers=conf.api.workers,
                              restart_method='mutate')
    launcher.wait()
