"""The simulator's own tests: requests to a simulator in process (a WSGI
app), its time moved on until something happens, and the notifications
it sends heard on the in-process bus."""

import contextlib

import oslo_messaging
import webob


def request(sim, method, path, body=None, headers=None):
    """``method`` on ``path`` (from the simulator's root), ``body`` sent as
    JSON, with a token (the simulator's services take any) and
    ``headers``: the webob response."""
    req = webob.Request.blank(path, method=method, headers=dict(
        {'X-Auth-Token': 'any'}, **(headers or {})))
    if body is not None:
        req.json = body
    return req.get_response(sim)


def microversion(service, version):
    """The header asking ``service`` ('compute', 'volume') for
    ``version``; none when ``version`` is None."""
    if version is None:
        return {}
    return {'OpenStack-API-Version': '%s %s' % (service, version)}


def until(check, move, timeout=5, what='not reached'):
    """Until ``check`` holds, ``move(0.01)`` the simulator's clock on (its
    ``advance``, or its ``sleep``, which waits on the real clock); fail
    with ``what`` after ``timeout`` s of it."""
    for _step in range(int(timeout / 0.01)):
        if check():
            return
        move(0.01)
    assert check(), what


@contextlib.contextmanager
def notifications_heard(transport, exchange, topic='notifications'):
    """A list of the (publisher_id, event_type, payload, priority) of the
    notifications sent on ``exchange`` of ``transport`` while in the
    block, filled as they arrive (from the listener's thread)."""
    heard = []

    class Endpoint:
        def info(self, ctxt, publisher_id, event_type, payload, metadata):
            heard.append((publisher_id, event_type, payload, 'info'))

        def error(self, ctxt, publisher_id, event_type, payload, metadata):
            heard.append((publisher_id, event_type, payload, 'error'))

    listener = oslo_messaging.get_notification_listener(
        transport, [oslo_messaging.Target(topic=topic, exchange=exchange)],
        [Endpoint()], executor='threading')
    listener.start()
    try:
        yield heard
    finally:
        listener.stop()
        listener.wait()
