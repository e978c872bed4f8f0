"""watcher-ha-all-in-one: the API, a decision engine and an applier in one
process. With the defaults (SQLite, the in-process fake:// transport) it
needs no server at all. With ``[simulator] scenario`` it also serves a
simulated cloud whose Nova notifications its decision engine receives."""

import sys

from oslo_service import service

from watcher_ha.api import app
from watcher_ha.cmd import api
from watcher_ha.cmd import applier
from watcher_ha.cmd import decision_engine
from watcher_ha.common import daemon
from watcher_ha.common import service as watcher_service
from watcher_ha.common import wsgi_server
from watcher_ha.simulator import embedded


class AllInOne(service.ServiceBase):
    """Several services sharing one process (and its in-process bus)."""

    def __init__(self, services):
        self.services = services

    def start(self):
        for svc in self.services:
            svc.start()

    def stop(self, graceful=True):
        # The API first, so that nothing new arrives while the daemons
        # finish or hand back their work.
        for svc in reversed(self.services):
            svc.stop()

    def wait(self):
        for svc in self.services:
            svc.wait()

    def reset(self):
        for svc in self.services:
            svc.reset()


def main(argv=None):
    conf = watcher_service.prepare_service(
        sys.argv[1:] if argv is None else argv,
        program='watcher-ha-all-in-one')
    sock = wsgi_server.bind(conf.api.host, conf.api.port)
    # The cloud first, so that the engine's first resync finds it.
    cloud = embedded.EmbeddedCloud(conf) if conf.simulator.scenario else None
    # The engine before the API: the catalog of goals and strategies it
    # syncs is what the API serves.
    everything = AllInOne(([cloud] if cloud else []) + [
        decision_engine.build(
            conf, nova_transport=cloud.nova_transport if cloud else None),
        applier.build(conf),
        wsgi_server.WSGIService(api.API_BINARY,
                                lambda: app.setup_app(conf), sock,
                                conf.api.threads,
                                heartbeat=daemon.Heartbeat(api.API_BINARY)),
    ])
    # One process, so that the in-process bus reaches every part.
    watcher_service.run(conf, everything)
