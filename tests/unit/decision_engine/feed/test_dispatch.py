"""The dispatcher between the notification listener and the handlers."""

import datetime
import threading

from watcher_ha.decision_engine.feed import dispatch
from watcher_ha.decision_engine.feed import nova_events

T0 = datetime.datetime(2026, 11, 22)


def event(event_type, publisher='nova-compute:h1', n=0):
    return nova_events.Event(event_type, publisher, {'n': n}, T0)


def test_handlers_get_what_they_asked_for_in_order():
    seen = {'compute': [], 'third': [], 'all': []}
    dispatcher = dispatch.Dispatcher([
        dispatch.Handler('compute', r'^nova-compute:',
                         frozenset(['instance.update']),
                         lambda e: seen['compute'].append(e.payload['n'])),
        dispatch.Handler('third', r'^cinder-', None,
                         lambda e: seen['third'].append(e.payload['n'])),
    ])
    dispatcher.register(dispatch.Handler(
        'all', r'', None, lambda e: seen['all'].append(e.payload['n'])))
    dispatcher.start()
    for n in range(100):
        dispatcher.submit(event('instance.update', n=n))
    dispatcher.submit(event('instance.update', 'nova-api:x', n=100))
    dispatcher.submit(event('volume.create.end', 'cinder-volume:y', n=101))
    dispatcher.drain()
    dispatcher.stop()
    assert seen['compute'] == list(range(100))
    assert seen['third'] == [101]
    assert seen['all'] == list(range(102))
    assert dispatcher.dispatched == 102


def test_a_failing_handler_does_not_stop_the_others():
    got = []

    def broken(event):
        raise ValueError('bad payload')
    dispatcher = dispatch.Dispatcher([
        dispatch.Handler('broken', r'', None, broken),
        dispatch.Handler('fine', r'', None, lambda e: got.append(e))])
    dispatcher.start()
    dispatcher.submit(event('instance.update'))
    dispatcher.submit(event('instance.update'))
    dispatcher.drain()
    dispatcher.stop()
    assert len(got) == 2 and dispatcher.failed == 2


def test_a_full_queue_makes_the_listener_wait_not_drop(monkeypatch):
    monkeypatch.setattr(dispatch, 'QUEUE_SIZE', 5)
    release = threading.Event()
    got = []

    def slow(event):
        release.wait(5)
        got.append(event)
    dispatcher = dispatch.Dispatcher([dispatch.Handler('slow', r'', None,
                                                       slow)])
    dispatcher.start()
    submitted = []

    def listener():
        for n in range(20):
            dispatcher.submit(event('instance.update', n=n))
            submitted.append(n)
    thread = threading.Thread(target=listener)
    thread.start()
    thread.join(0.5)
    # Blocked on the full queue (one in hand, five queued).
    assert thread.is_alive() and len(submitted) <= 7
    release.set()
    thread.join(5)
    dispatcher.drain()
    dispatcher.stop()
    assert [e.payload['n'] for e in got] == list(range(20))


def test_a_batch_goes_to_handle_many_filtered_and_in_order():
    batches, singles = [], []
    dispatcher = dispatch.Dispatcher([dispatch.Handler(
        'compute', r'^nova-compute:', frozenset(['instance.update']),
        lambda e: singles.append(e.payload['n']),
        handle_many=lambda events: batches.append(
            [e.payload['n'] for e in events]))])
    dispatcher.start()
    dispatcher.submit_many(
        [event('instance.update', n=n) for n in range(5)]
        + [event('instance.update', 'nova-api:x', n=5),
           event('service.update', n=6), event('instance.update', n=7)])
    dispatcher.submit(event('instance.update', n=8))
    dispatcher.drain()
    dispatcher.stop()
    assert batches == [[0, 1, 2, 3, 4, 7]]
    # A batch of one needs no batch call.
    assert singles == [8]
    assert dispatcher.dispatched == 9


def test_a_failed_batch_is_retried_one_by_one_and_only_the_bad_one_fails():
    got = []

    def handle(e):
        if e.payload['n'] == 2:
            raise ValueError('bad payload')
        got.append(e.payload['n'])

    def handle_many(events):
        for e in events:
            if e.payload['n'] == 2:
                raise ValueError('bad payload')
    dispatcher = dispatch.Dispatcher([dispatch.Handler(
        'compute', r'', None, handle, handle_many=handle_many)])
    dispatcher.start()
    dispatcher.submit_many([event('instance.update', n=n) for n in range(5)])
    dispatcher.drain()
    dispatcher.stop()
    assert got == [0, 1, 3, 4]
    assert dispatcher.failed == 1 and dispatcher.dispatched == 5
