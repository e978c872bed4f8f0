"""What the parts of the simulated Compute API share: the service (its
path, microversions, URLs), Nova's paging, booleans and times."""

from watcher_ha.simulator import web

# Nova's [api] max_limit: the most items a page holds; a scenario's
# ``max_limit`` sets another.
MAX_LIMIT = 1000
# Nova's parameter_types.boolean.
BOOLEANS = {True: True, False: False}
BOOLEANS.update({word: True for word in ('True', 'TRUE', 'true', '1', 'ON',
                                         'On', 'on', 'YES', 'Yes', 'yes')})
BOOLEANS.update({word: False for word in ('False', 'FALSE', 'false', '0',
                                          'OFF', 'Off', 'off', 'NO', 'No',
                                          'no')})


def api_time(value):
    """How Nova's API writes a time (None: null)."""
    return None if value is None else value.strftime('%Y-%m-%dT%H:%M:%SZ')


class ComputeService(web.Service):
    """The Compute API's service, which each part (servers_api...)
    extends with its handlers and api.ComputeAPI routes to."""

    prefix = '/compute/v2.1'
    microversions = web.Versions(
        'compute', '2.1', '2.96',
        legacy_header='X-OpenStack-Nova-API-Version')

    def _url(self, req, *parts):
        return '/'.join([req.host_url + self.prefix] + list(parts))
    def _limit(self, req):
        max_limit = int(self.sim.spec.get('max_limit', MAX_LIMIT))
        try:
            limit = int(req.GET.get('limit', max_limit))
        except ValueError:
            raise web.Reply(400, 'Invalid input for query parameters limit.')
        if limit < 0:
            raise web.Reply(400, 'Invalid input for query parameters limit.')
        return min(limit, max_limit)

    def _next_links(self, req, collection, limit, page, key=None):
        """Nova's next link: there is one whenever a page is full, even
        the last (the page after it is then empty), so a client pages
        until it gets an empty or short page."""
        if not page or len(page) < limit:
            return []
        marker = key(page[-1]) if key else page[-1].uuid
        query = dict(req.GET)
        query.update(limit=limit, marker=marker)
        return [{'rel': 'next', 'href': '%s?%s' % (
            self._url(req, collection), '&'.join(
                '%s=%s' % item for item in sorted(query.items())))}]

    def _page(self, req, items, key, collection):
        """Nova's marker/limit paging of ``items``, with a next link."""
        limit = self._limit(req)
        marker = req.GET.get('marker')
        start = 0
        if marker is not None:
            positions = [index for index, item in enumerate(items)
                         if key(item) == marker]
            if not positions:
                raise web.Reply(400, 'marker [%s] not found' % marker)
            start = positions[0] + 1
        page = items[start:start + limit]
        return page, self._next_links(req, collection, limit, page, key)

    @staticmethod
    def _boolean(name, value):
        try:
            return BOOLEANS[value]
        except (KeyError, TypeError):
            raise web.Reply(400, 'Invalid input for field/attribute %s. '
                                 'Value: %s. %r is not one of the '
                                 'booleans' % (name, value, value))
