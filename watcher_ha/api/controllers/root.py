"""``/``: the API's version discovery document."""

import json

import pecan
from pecan import rest

from watcher_ha.api.controllers import v1
from watcher_ha.api import microversion
from watcher_ha.api import request

NAME = 'OpenStack Watcher API'
DESCRIPTION = ('watcher_ha: active-active resource optimisation and instance '
               'high availability for OpenStack, wire-compatible with the '
               'Watcher API.')


def version_document():
    return {
        'id': 'v1',
        'status': 'CURRENT',
        'max_version': microversion.MAX_VERSION_STRING,
        'min_version': microversion.MIN_VERSION_STRING,
        'links': [{'href': request.base_url() + '/v1/', 'rel': 'self'}],
    }


class RootController(rest.RestController):

    v1 = v1.Controller()

    @pecan.expose()
    def _route(self, args, request=None):
        return super()._route(
            v1.known_first(args, v1.BOOKMARKABLE | {'v1'}), request)

    @pecan.expose()
    def _lookup(self, primary, *remainder):
        # Bookmark links omit the version: /goals/<uuid> is /v1/goals/<uuid>.
        # Pecan also asks here when a route has more path segments than
        # its handler takes; None lets its normal 404/405 stand.
        if primary in v1.BOOKMARKABLE:
            return self.v1, (primary,) + remainder
        return None

    @pecan.expose(content_type='application/json')
    def get_one(self, *unknown):
        pecan.abort(404)

    @pecan.expose(content_type='application/json')
    def get_all(self):
        # Unversioned: no microversion headers, as with Watcher.
        document = version_document()
        body = {'name': NAME, 'description': DESCRIPTION,
                'versions': [document], 'default_version': document}
        pecan.response.content_type = 'application/json'
        pecan.response.body = json.dumps(body).encode()
        return pecan.response
