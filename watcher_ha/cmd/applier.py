"""watcher-ha-applier: executes the action plans operators start."""

import sys

from watcher_ha.applier import manager
from watcher_ha.applier import rpcapi
from watcher_ha.service import daemon
from watcher_ha.service import healthcheck
from watcher_ha.service import metrics_server
from watcher_ha.service import service as watcher_service


def build(conf):
    return daemon.Daemon(manager.BINARY, rpcapi.TOPIC,
                         manager.ApplierManager())


def main(argv=None):
    conf = watcher_service.prepare_service(
        sys.argv[1:] if argv is None else argv, program=manager.BINARY)
    if conf.metrics.enabled:
        metrics_server.serve(conf, conf.metrics.applier_port,
                             health=healthcheck.application(conf))
    watcher_service.run(conf, build(conf))
