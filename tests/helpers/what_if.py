"""A decision engine's what-if served in the test process: its RPC
endpoint (the real one) on a compute model made by hand, answering the
API's calls through a JSON round trip, as on the bus."""

import io
import json

from tests import strategy_clusters as clusters
from watcher_ha.cmd import cli
from watcher_ha.common import exception
from watcher_ha.common import plugins
from watcher_ha.decision_engine import manager as engine_manager
from watcher_ha.decision_engine import rpcapi
from watcher_ha.decision_engine.model import cluster


def model(ready=True):
    """A compute model: a busy host (6 of 8 vcpus), an idle one (1), an
    empty one."""
    state = clusters.build(
        [clusters.node('busy', vcpus=8), clusters.node('idle', vcpus=8),
         clusters.node('empty', vcpus=8)],
        [clusters.server('a', 'busy', vcpus=4),
         clusters.server('b', 'busy', vcpus=2),
         clusters.server('c', 'idle', vcpus=1)])
    made = cluster.ClusterModel()
    if ready:
        made.finish_resync(state)
    return made


def migrations(*moves):
    """(action type, input parameters) of live migrations (server,
    source, destination), servers named as ``model``'s."""
    return [('migrate', {'resource_id': 'uuid-' + server,
                         'migration_type': 'live', 'source_node': source,
                         'destination_node': destination})
            for server, source, destination in moves]


class Engine:
    """What the what-if reads of a decision engine; its ``what_if`` is
    the real one."""
    host = 'engine-a'
    what_if = engine_manager.DecisionEngineManager.what_if

    def __init__(self, compute):
        self._compute = compute
        self.loaded = type('Loaded', (), {
            'goals': plugins.load_classes(plugins.GOALS)})()
        self.auditor = type('Auditor', (), {'datasources': []})()
        self.collectors = type('Collectors', (), {
            'get': lambda _self, name: type('Collector', (), {
                'nova': staticmethod(lambda: None)})()})()

    def model(self, name):
        if self._compute is None:
            raise exception.NotFound('This decision engine (%s) keeps no '
                                     '%s data model' % (self.host, name))
        return self._compute


def serve(monkeypatch, compute=model):
    """The engine's endpoints on ``compute`` (a ClusterModel, None for
    none, or a function that makes it: ``model`` by default) answering
    the API's RPC calls in this process; the endpoints."""
    endpoints = engine_manager.Endpoints(Engine(
        compute() if callable(compute) else compute))

    def call(self, context, method, **kwargs):
        answer = getattr(endpoints, method)(context, **kwargs)
        return json.loads(json.dumps(answer))
    monkeypatch.setattr(rpcapi.DecisionEngineAPI, '_call', call)
    return endpoints


def cli_output(url, *argv):
    """What ``watcher-ha what-if ARGV`` prints, run in this process
    against the API at ``url`` without Keystone."""
    out = io.StringIO()
    cli.main(['--os-auth-type', 'none', '--os-endpoint', url, 'what-if',
              *argv], out=out)
    return out.getvalue()
