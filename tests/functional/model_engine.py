"""A decision engine's model side in the test process: one collector,
its dispatcher and the notification listener that feeds it, for the
tests that check that a data model follows the cloud."""

import contextlib

from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import listener_process
from watcher_ha.decision_engine.model.collector import manager as \
    collector_manager


class ModelEngine:
    """The ``collector`` model ('compute', 'storage') of an engine named
    ``host``; ``processes``: its notification_listener_processes."""

    def __init__(self, collector, host, processes=0):
        self.name = collector
        self.collectors = collector_manager.CollectorManager([collector])
        self.model = self.collectors.model(collector)
        self.dispatcher = dispatch.Dispatcher(self.collectors.handlers())
        self.listener = listener_process.nova_listener(
            self.dispatcher, host, processes=processes)

    def start(self):
        self.dispatcher.start()
        self.listener.start()
        self.collectors.resync(self.name)

    def stop(self):
        self.listener.stop()
        self.dispatcher.stop()


@contextlib.contextmanager
def two_engines(collector):
    """engine-a reading the bus in its own process and engine-b with two
    listener processes (whose batches interleave), both following the
    ``collector`` model, started; stopped on leaving. Their models must
    end the same."""
    engines = []
    try:
        engines.append(ModelEngine(collector, 'engine-a'))
        engines.append(ModelEngine(collector, 'engine-b', processes=2))
        for engine in engines:
            engine.start()
        yield engines
    finally:
        for engine in engines:
            engine.stop()
