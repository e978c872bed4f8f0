"""watcher-ha-all-in-one: the API, a decision engine and an applier in one
process. With the defaults (SQLite, the in-process fake:// transport) it
needs no server at all. With ``[simulator] scenario`` it also serves a
simulated cloud whose Nova (and Cinder) notifications its decision engine
receives."""

import sys

from watcher_ha.api import app
from watcher_ha.cmd import api
from watcher_ha.cmd import applier
from watcher_ha.cmd import decision_engine
from watcher_ha.db import state_metrics
from watcher_ha.decision_engine.feed import listener
from watcher_ha.decision_engine.model import metrics as model_metrics
from watcher_ha.service import daemon
from watcher_ha.service import metrics_server
from watcher_ha.service import service as watcher_service
from watcher_ha.service import wsgi_server
from watcher_ha.simulator import embedded


def main(argv=None):
    conf = watcher_service.prepare_service(
        sys.argv[1:] if argv is None else argv,
        program='watcher-ha-all-in-one')
    sock = wsgi_server.bind(conf.api.host, conf.api.port,
                            backlog=conf.api.backlog)
    # The cloud first, so that the engine's first resync finds it.
    cloud = embedded.EmbeddedCloud(
        conf, sock.getsockname()) if conf.simulator.scenario else None
    # The engine before the API: the catalog of goals and strategies it
    # syncs is what the API serves.
    engine = decision_engine.build(conf, transports={
        listener.NOVA: cloud.nova_transport,
        listener.CINDER: cloud.cinder_transport} if cloud else None)
    everything = daemon.Services(([cloud] if cloud else []) + [
        engine,
        applier.build(conf),
        wsgi_server.WSGIService(api.API_BINARY,
                                lambda: app.setup_app(conf), sock,
                                conf.api.threads,
                                heartbeat=daemon.Heartbeat(api.API_BINARY)),
    ])
    if conf.metrics.enabled:
        # One endpoint for the three: on the API's port.
        metrics_server.serve(conf, conf.metrics.api_port, [
            state_metrics.StateCollector(),
            model_metrics.ModelCollector(engine.manager)])
    # One process, so that the in-process bus reaches every part.
    watcher_service.run(conf, everything)
