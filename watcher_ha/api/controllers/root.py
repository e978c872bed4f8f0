"""The Watcher API v1 as a WSGI app: ``/``, the version discovery
document, and the route table of ``/v1`` (api/controllers/v1), read as
api/controllers/paths.py says; every handler goes through
api/method.py's funnel for errors."""

import json

import webob
import webob.dec

from watcher_ha.api import microversion
from watcher_ha.api import request
from watcher_ha.api import routing
from watcher_ha.api.controllers import paths
from watcher_ha.api.controllers import v1

NAME = 'OpenStack Watcher API'
DESCRIPTION = ('watcher_ha: active-active resource optimisation and instance '
               'high availability for OpenStack, wire-compatible with the '
               'Watcher API.')


def version_document(base_url):
    return {
        'id': 'v1',
        'status': 'CURRENT',
        'max_version': microversion.MAX_VERSION_STRING,
        'min_version': microversion.MIN_VERSION_STRING,
        'links': [{'href': base_url + '/v1/', 'rel': 'self'}],
    }


def versions(req, params, args):
    # Unversioned: no microversion headers, as with Watcher.
    document = version_document(request.base_url(req))
    body = {'name': NAME, 'description': DESCRIPTION,
            'versions': [document], 'default_version': document}
    resp = webob.Response()
    resp.content_type = 'application/json'
    resp.charset = None
    resp.body = json.dumps(body).encode()
    return resp


ROUTES = (('GET', '/', versions),) + v1.ROUTES


class WatcherAPI:

    def __init__(self):
        self.table = routing.Table(ROUTES)
        self.paths = paths.Reader(self.table, v1.BOOKMARKABLE)

    @webob.dec.wsgify(RequestClass=request.Request)
    def __call__(self, req):
        try:
            found = self.paths.read(req)
        except paths.Refused as refused:
            return refused.answer()
        return found.handler(req, found.params, found.args)
