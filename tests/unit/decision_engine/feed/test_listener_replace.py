"""A notification listener is replaced by one on new connections; the
old one is stopped in the background, where it may hang (a connection
wedged in its retries); the ids of its connections are read from
oslo.messaging's listener as the RabbitMQ driver names them."""

import threading
import types

from watcher_ha.decision_engine.feed import listener


class Consumer:
    """A started batch listener, as oslo.messaging's server is, with the
    insides the connection id is read through."""

    made = 0

    def __init__(self, stop_blocks=None):
        Consumer.made += 1
        connection = types.SimpleNamespace(
            connection_id='connection-%d' % Consumer.made)
        self.listener = types.SimpleNamespace(
            _poll_style_listener=types.SimpleNamespace(conn=connection))
        self.stop_blocks = stop_blocks
        self.stopped = threading.Event()

    def start(self, override_pool_size=None):
        pass

    def stop(self):
        if self.stop_blocks is not None:
            self.stop_blocks.wait(10)
        self.stopped.set()

    def wait(self):
        pass


def _listener(monkeypatch, made, config):
    config.config(group='watcher_decision_engine', collectors=['compute'])
    monkeypatch.setattr(listener, 'batch_listener',
                        lambda *args, **kwargs: made.pop(0))
    transport = object()
    return listener.NovaListener(None, 'engine-1', transports={
        listener.NOVA: transport})


def test_a_replaced_listener_listens_on_new_connections(monkeypatch,
                                                        config):
    stuck = threading.Event()
    first, second = Consumer(stop_blocks=stuck), Consumer()
    nova = _listener(monkeypatch, [first, second], config)
    nova.start()
    [old_id] = nova.connection_ids()
    nova.replace()
    # The new one listens although the old one has not stopped yet.
    assert nova.connection_ids() != [old_id]
    assert len(nova.connection_ids()) == 1
    assert not first.stopped.is_set()
    stuck.set()
    assert first.stopped.wait(10)
    nova.stop()
    assert second.stopped.is_set()


def test_a_listener_of_another_driver_names_no_connection(monkeypatch,
                                                          config):
    consumer = Consumer()
    consumer.listener = types.SimpleNamespace()
    nova = _listener(monkeypatch, [consumer], config)
    nova.start()
    assert nova.connection_ids() == []
    nova.stop()
