"""The API and the daemons' RPC endpoints in this process: a client that
calls the WSGI app as an HTTP client would, and endpoints served on the
daemons' topics of the in-process bus."""

import contextlib
import json

import webob


class Client:
    """Calls the full WSGI app in-process, as an HTTP client would."""

    def __init__(self, app):
        self.app = app

    def request(self, method, path, body=None, version=None, headers=None,
                raw=None):
        req = webob.Request.blank(path, method=method)
        req.headers['Accept'] = 'application/json'
        if version:
            req.headers['OpenStack-API-Version'] = 'infra-optim %s' % version
        if raw is not None:
            req.body = raw if isinstance(raw, bytes) else raw.encode()
            req.content_type = 'application/json'
        elif body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = 'application/json'
        for key, value in (headers or {}).items():
            req.headers[key] = value
        return Response(req.get_response(self.app))

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, body=body, **kwargs)

    def patch(self, path, body=None, **kwargs):
        return self.request('PATCH', path, body=body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)


class Response:

    def __init__(self, resp):
        self.status = resp.status_int
        self.headers = resp.headers
        self.body = resp.body

    @property
    def json(self):
        return json.loads(self.body)

    @property
    def fault(self):
        """The faultstring of a Watcher error body."""
        return json.loads(self.json['error_message'])['faultstring']

    def __repr__(self):
        return '<%s %s>' % (self.status, self.body[:300])


@contextlib.contextmanager
def daemon_endpoints(endpoint):
    """Serve ``endpoint`` on the decision engines' and the appliers' RPC
    topics of the in-process bus, in place of the daemons, in the block.

    The bus keeps casts no test consumed: the endpoint may also receive
    other tests' messages.
    """
    # Imported here: oslo.messaging must not load before watcher_ha has
    # chosen oslo.service's threading backend.
    import oslo_messaging

    from watcher_ha.applier import rpcapi as applier_rpcapi
    from watcher_ha.service import rpc
    from watcher_ha.decision_engine import rpcapi as engine_rpcapi
    servers = [oslo_messaging.get_rpc_server(
        rpc.get_transport(), oslo_messaging.Target(topic=topic,
                                                   server='test'),
        [endpoint], executor='threading')
        for topic in (engine_rpcapi.TOPIC, applier_rpcapi.TOPIC)]
    for server in servers:
        server.start()
    try:
        yield endpoint
    finally:
        for server in servers:
            server.stop()
            server.wait()
