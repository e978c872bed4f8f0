"""watcher-ha-decision-engine: turns audits into action plans."""

import sys

from watcher_ha.common import daemon
from watcher_ha.common import service as watcher_service
from watcher_ha.decision_engine import manager
from watcher_ha.decision_engine import rpcapi


def build(conf, nova_transport=None):
    return daemon.Daemon(manager.BINARY, rpcapi.TOPIC,
                         manager.DecisionEngineManager(
                             nova_transport=nova_transport))


def main(argv=None):
    conf = watcher_service.prepare_service(
        sys.argv[1:] if argv is None else argv,
        program=manager.BINARY)
    watcher_service.run(conf, build(conf))
