"""watcher-ha-decision-engine: turns audits into action plans."""

import sys

from watcher_ha.decision_engine import manager
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine.model import metrics as model_metrics
from watcher_ha.service import daemon
from watcher_ha.service import healthcheck
from watcher_ha.service import metrics_server
from watcher_ha.service import service as watcher_service


def build(conf, transports=None):
    return daemon.Daemon(manager.BINARY, rpcapi.TOPIC,
                         manager.DecisionEngineManager(
                             transports=transports))


def main(argv=None):
    conf = watcher_service.prepare_service(
        sys.argv[1:] if argv is None else argv,
        program=manager.BINARY)
    engine = build(conf)
    if conf.metrics.enabled:
        metrics_server.serve(conf, conf.metrics.decision_engine_port,
                             [model_metrics.ModelCollector(engine.manager)],
                             health=healthcheck.application(conf))
    watcher_service.run(conf, engine)
