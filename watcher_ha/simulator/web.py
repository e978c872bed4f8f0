"""What the simulator's HTTP services share: routing (python-routes),
JSON replies, Nova-style fault bodies, microversion negotiation
(microversion-parse) and the fault injection of API calls."""

import copy
import json

import microversion_parse
import routes
import webob
import webob.dec

from watcher_ha.simulator.nova import model as nova_model

# HTTP status -> Nova's fault name.
FAULT_NAMES = {400: 'badRequest', 401: 'unauthorized', 403: 'forbidden',
               404: 'itemNotFound', 405: 'badMethod', 406: 'notAcceptable',
               409: 'conflictingRequest', 413: 'overLimit',
               500: 'computeFault', 501: 'notImplemented',
               503: 'serviceUnavailable'}


class Reply(Exception):
    """An error reply: status and message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


# A handler's body for a JSON ``null`` (None means no body at all): what
# Heat answers a resource signal or a mark-unhealthy with.
JSON_NULL = object()


def json_response(body, status=200, headers=None):
    resp = webob.Response(status=status, content_type='application/json',
                          charset='utf-8')
    if body is JSON_NULL:
        resp.text = 'null'
    elif body is not None:
        resp.text = json.dumps(body)
    else:
        resp.content_type = None
    for name, value in (headers or {}).items():
        resp.headers[name] = value
    return resp


def fault(status, message):
    return json_response({FAULT_NAMES.get(status, 'computeFault'): {
        'code': status, 'message': message}}, status)


# Where a handler leaves how long its reply waits (see hold_reply).
HOLD = 'watcher_ha.simulator.hold'


def hold_reply(req, seconds):
    """Answer ``req`` only ``seconds`` from now: the service waits for
    something that does not come (a call nobody answers). The wait is
    outside the cloud's lock: the other requests go on meanwhile."""
    req.environ[HOLD] = max(seconds, req.environ.get(HOLD, 0.0))


def refuse_unexpected(body, allowed, field):
    """Nova's and Cinder's 400 (their JSON Schema's words) for the keys
    of ``body`` that the schema of ``field`` does not allow."""
    unexpected = sorted(set(body) - set(allowed))
    if unexpected:
        raise Reply(400, 'Invalid input for field/attribute %s. Additional '
                         'properties are not allowed (%s was unexpected)'
                    % (field, ', '.join(repr(k) for k in unexpected)))


def body_of(req):
    if not req.body:
        return {}
    try:
        body = json.loads(req.body)
    except ValueError:
        raise Reply(400, 'Malformed request body')
    if not isinstance(body, dict):
        raise Reply(400, 'Malformed request body: an object is expected')
    return body


class Versions:
    """A service's microversion range and header names."""

    def __init__(self, service_type, minimum, maximum, legacy_header=None):
        self.service_type = service_type
        self.minimum = microversion_parse.parse_version_string(minimum)
        self.maximum = microversion_parse.parse_version_string(maximum)
        self.legacy_header = legacy_header

    def up_to(self, maximum):
        """These versions served only up to ``maximum`` ("X.Y"; None:
        all of them), as an older release of the service would."""
        if maximum is None:
            return self
        capped = copy.copy(self)
        capped.maximum = microversion_parse.parse_version_string(maximum)
        return capped

    def negotiate(self, req):
        headers = dict(req.headers)
        asked = microversion_parse.get_version(
            headers, self.service_type,
            legacy_headers=[self.legacy_header] if self.legacy_header
            else None)
        if not asked:
            return self.minimum
        if asked.strip().lower() == 'latest':
            return self.maximum
        try:
            version = microversion_parse.parse_version_string(asked)
        except (TypeError, ValueError):
            raise self.invalid(asked)
        if not version.matches(self.minimum, self.maximum):
            raise self.unsupported(asked, version)
        return version

    # The service's own refusals (Nova's and Placement's by default).

    def invalid(self, asked):
        return Reply(400, 'Invalid API version request string %s' % asked)

    def unsupported(self, asked, version):
        return Reply(406, 'Version %s is not supported by the API. '
                          'Minimum is %s and maximum is %s.'
                     % (asked, self.minimum, self.maximum))

    def headers(self, version):
        text = '%d.%d' % (version.major, version.minor)
        found = {'OpenStack-API-Version': '%s %s' % (self.service_type,
                                                     text),
                 'Vary': 'OpenStack-API-Version'}
        if self.legacy_header:
            found[self.legacy_header] = text
            found['Vary'] += ', ' + self.legacy_header
        return found


def route_table(text):
    """The routes of ``text``, a table of one route a line: its method,
    path and handler name, apart by white space. A path ending in '/' is
    served both with and without it (a service's root, a version's
    document), first without."""
    found = []
    for line in text.splitlines():
        if not line.strip():
            continue
        method, path, handler = line.split()
        if path.endswith('/'):
            found.append((method, path[:-1], handler))
        found.append((method, path, handler))
    return tuple(found)


class Service:
    """A WSGI app: ``routes`` is [(method, path, handler name)], written
    as a route_table; each handler takes (req, version, **matched) and
    returns (status, body) or (status, body, headers)."""

    prefix = ''
    microversions = None
    routes = ()

    def __init__(self, simulator):
        self.sim = simulator
        self.cloud = simulator.cloud
        if isinstance(self.microversions, Versions):
            # The scenario's max_microversions ({compute: '2.88'}) plays
            # an older release of the service.
            maxima = simulator.spec.get('max_microversions') or {}
            self.microversions = self.microversions.up_to(
                maxima.get(self.microversions.service_type))
        self.mapper = routes.Mapper()
        for method, path, handler in self.routes:
            self.mapper.connect(None, self.prefix + path, handler=handler,
                                conditions={'method': [method]})

    @webob.dec.wsgify
    def __call__(self, req):
        status, delay = self.sim.faults.api_fault(req.method, req.path)
        if delay:
            self.sim.clock.sleep(delay)
        if status is not None:
            # In the service's own error format.
            return self.error(status, 'Injected failure (simulator fault '
                                      'API)')
        version = None
        try:
            if self.microversions is not None:
                version = self.microversions.negotiate(req)
            self.authorize(req)
            match = self.mapper.match(req.path_info, {
                'REQUEST_METHOD': req.method})
            if match is None:
                if self.mapper.match(req.path_info):
                    raise Reply(405, 'The method is not allowed for this '
                                     'resource.')
                raise Reply(404, 'The resource could not be found.')
            handler = getattr(self, match.pop('handler'))
            with self.cloud.lock:
                status, body, *headers = handler(req, version, **match)
        except Reply as err:
            resp = self.refusal(err)
        except nova_model.Refused as err:
            resp = self.error(err.status, err.message)
        else:
            resp = json_response(body, status, *headers)
        if req.environ.get(HOLD):
            self.sim.clock.sleep(req.environ[HOLD])
        if version is not None:
            for name, value in self.microversions.headers(version).items():
                resp.headers[name] = value
        return resp

    def error(self, status, message):
        return fault(status, message)

    def refusal(self, reply):
        """The response to a handler's ``Reply``: the service's error
        format (a service whose errors say more than a status and a
        message reads the rest from its own Reply subclass)."""
        return self.error(reply.status, reply.message)

    def authorize(self, req):
        """Like a Nova with the noauth pipeline, the services take any
        token (keystoneauth's ``auth_type = none`` sends a placeholder):
        credentials are checked where tokens are issued."""
