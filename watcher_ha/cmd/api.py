"""watcher-ha-api: the REST API, in ``[api] workers`` processes."""

import sys

from oslo_config import cfg
from oslo_service import service

from watcher_ha.api import app
from watcher_ha.db import state_metrics
from watcher_ha.service import daemon
from watcher_ha.service import metrics_server
from watcher_ha.service import service as watcher_service
from watcher_ha.service import wsgi_server

CONF = cfg.CONF

API_BINARY = 'watcher-ha-api'
# Scrapes are few: two threads per worker answer them.
METRICS_THREADS = 2


def _metrics_service(conf):
    """The metrics endpoint of the API workers; the parent binds it, so
    that a taken port stops the API at start."""
    metrics_server.check_workers(conf.api.workers)
    metrics_server.clear_multiprocess_dir()
    sock = wsgi_server.bind(conf.metrics.host, conf.metrics.api_port,
                            group='metrics')
    return wsgi_server.WSGIService(
        API_BINARY + '-metrics',
        lambda: metrics_server.wsgi_app([state_metrics.StateCollector()]),
        sock, METRICS_THREADS)


def main(argv=None):
    conf = watcher_service.prepare_service(
        sys.argv[1:] if argv is None else argv, program='watcher-ha-api')
    watcher_service.check_schema()
    sock = wsgi_server.bind(conf.api.host, conf.api.port,
                            backlog=conf.api.backlog)
    server = wsgi_server.WSGIService(
        API_BINARY, lambda: app.setup_app(conf), sock, conf.api.threads,
        heartbeat=daemon.Heartbeat(API_BINARY))
    if conf.metrics.enabled:
        # Each worker process serves the API and, on a socket bound
        # before fork, the metrics endpoint: in multiprocess mode (several
        # workers) every worker's metrics, with one worker its own.
        server = daemon.Services([server, _metrics_service(conf)])
    launcher = service.launch(conf, server, workers=conf.api.workers,
                              restart_method='mutate')
    launcher.wait()
