"""How the Watcher API reads a request's path: which row of the route
table (api/controllers/v1/__init__.py) it names, and the handler's
arguments.

Watcher's clients and our goldens know the answers of Watcher's first
router, which read paths more loosely than a route table matches them:

- every collection is also at ``/<collection>`` (bookmark links), and an
  unknown first segment ends the reading (``/v1/x/y/audits`` is not found);
- empty segments are skipped (``/v1/goals//dummy``), except before a
  collection, where each stands for an empty identifier
  (``//v1/goals`` lists the goals, ``//v1/goals/dummy`` is not found);
- a collection's ``/``, and a word of its actions (``detail``, ``start``,
  ``state``) at the end of the path, choose that action; any other
  segment is an identifier (``/v1/goals/detail.json`` names a goal);
- an identifier the path lacks may come from the query string
  (``DELETE /v1/audits?ident=...``); then the query keeps the others;
- a 405 gives way to the bookmark reading of the path (``/audits/v1``
  reads ``/v1/audits/v1``), with the segments the first reading had
  carried still carried;
- ``?_method=`` overrides the request's method (never a GET into a PUT or
  DELETE), and stays a query parameter;
- a method the collection has no row for is a 405 naming the methods it
  has (Allow); HEAD is one of those. A path with more identifiers than
  its handler takes is a 404;
- a path or query string that is not UTF-8 is a 400.

These 404 and 405 are routing's: they carry no microversion headers. A
missing identifier is the handler's 400 (api/method.py).
"""

import dataclasses

from watcher_ha.api import routing

V1 = 'v1'
PREFIX = '/' + V1
ITEM = '/{ident}'
# A query parameter never taken as a handler's argument.
SELF = 'self'
METHOD_OVERRIDE = '_method'
# Methods named in an Allow header besides GET, as Watcher's router did.
ALLOWABLE = ('HEAD', 'POST', 'PUT', 'DELETE', 'TRACE', 'PATCH')


@dataclasses.dataclass
class Found:
    handler: object
    args: list          # the path's arguments, in order
    params: dict        # the query's other parameters


class Refused(Exception):
    """A 405 (``status``), 404 or 400 from routing. Only a 405 gives way
    to the bookmark reading of the same path, which starts with the
    segments ``carried`` so far."""

    def __init__(self, status, allowed=(), carried=()):
        super().__init__(status)
        self.status = status
        self.allowed = allowed
        self.carried = list(carried)

    def answer(self):
        if self.status == 405:
            return routing.method_not_allowed(self.allowed)
        if self.status == 400:
            return routing.bad_request()
        return routing.not_found()


def known_first(segments, known):
    """``segments`` cut after the first non-empty one when that one is not
    ``known``: a path under an unknown segment is unknown."""
    for index, segment in enumerate(segments):
        if segment:
            return (segments if segment in known
                    else segments[:index + 1])
    return segments


class Reader:
    """Reads paths into rows of ``table`` (a routing.Table), whose paths
    are ``/`` (``root``), ``/v1`` and ``/v1/<collection>...``."""

    def __init__(self, table, collections):
        self.table = table
        self.collections = frozenset(collections)

    def read(self, req):
        """The Found row of ``req``; Refused when there is none."""
        try:
            return self._read(req)
        except UnicodeDecodeError:
            raise Refused(400)

    def _read(self, req):
        method = req.GET.get(METHOD_OVERRIDE, req.method).lower()
        if req.method == 'GET' and method in ('delete', 'put'):
            raise Refused(405)
        segments = req.path_info.split('/')[1:]
        try:
            return self._root(req, method, segments)
        except Refused as refused:
            if refused.status != 405 or not segments or (
                    segments[0] not in self.collections):
                raise
            # The bookmark reading: /<collection>... as /v1/<collection>...
            return self._v1(req, method, segments, refused.carried)

    def _root(self, req, method, segments):
        segments = known_first(segments, self.collections | {V1})
        if V1 in segments:
            index = segments.index(V1)
            return self._v1(req, method, segments[index + 1:],
                            segments[:index])
        named = [segment for segment in segments if segment]
        if method == 'get' and not named and len(segments) < 2:
            return self._bind(req, self.table.handler('GET', '/'), [], [])
        if named and named[0] in self.collections:
            return self._v1(req, method, named, [])
        if method == 'get':
            raise Refused(404)
        raise Refused(405, ['GET'])

    def _v1(self, req, method, segments, carried):
        """``carried``: the segments before the collection, each one an
        argument before the path's own."""
        segments = known_first(segments, self.collections)
        for index, segment in enumerate(segments):
            if segment in self.collections:
                return self._collection(req, method, segment,
                                        segments[index + 1:],
                                        carried + segments[:index])
        if method != 'get':
            raise Refused(405, ['GET'], carried)
        if segments not in ([], ['']):
            raise Refused(404)
        return self._bind(req, self.table.handler('GET', PREFIX), [],
                          carried)

    def _collection(self, req, method, name, rest, carried):
        base = '%s/%s' % (PREFIX, name)
        table = self.table
        named = [segment for segment in rest if segment]
        verb = method.upper()
        item_get = table.handler('GET', base + ITEM)
        if item_get and len(carried) > 1 and not rest:
            # More empty segments before the collection than it takes
            # identifiers, and nothing after it.
            raise Refused(404)

        def action(word, verb=verb):
            if word.startswith(routing.VARIABLE):
                return None
            return (table.handler(verb, '%s/%s' % (base, word))
                    or table.handler(verb, '%s%s/%s' % (base, ITEM, word)))

        def plain(verb=verb):
            return (table.handler(verb, base)
                    or table.handler(verb, base + ITEM))

        found = None
        if method == 'get':
            if rest in ([], ['']):
                found = table.handler('GET', base), []
            elif named and action(named[-1]):
                found = action(named[-1]), named[:-1]
            else:
                found = item_get, rest
        elif method in ('post', 'put') and named:
            word, others = ((named[-1], named[:-1]) if method == 'post'
                            else (named[0], named[1:]))
            if action(word):
                found = action(word), others
        elif method == 'delete' and named and action(named[0]):
            found = action(named[0]), named[1:]
        if (found is None or found[0] is None) and method != 'get':
            found = plain(), rest
        if found[0] is None:
            allowed = [verb for verb in ALLOWABLE if plain(verb)]
            if plain('GET'):
                allowed.append('GET')
            raise Refused(405, allowed, carried)
        handler, segments = found
        return self._bind(req, handler, segments, carried)

    def _bind(self, req, handler, segments, carried):
        """The handler's arguments: the carried segments, then the path's
        non-empty ones; the missing ones from the query string."""
        takes = getattr(handler, 'arguments', ())
        values = carried + [segment for segment in segments if segment]
        args, surplus = values[:len(takes)], values[len(takes):]
        if any(surplus):
            raise Refused(404)
        params = req.GET.mixed()
        for name in takes[len(args):]:
            if name not in params:
                break
            args.append(params.pop(name))
        params = {key: value for key, value in params.items()
                  if key != SELF and key not in takes}
        return Found(handler, args, params)
