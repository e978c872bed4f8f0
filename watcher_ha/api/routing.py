"""The one routing idiom of both APIs: a table of (method, path, handler)
rows, made into a ``routes.Mapper``.

The instance-ha API matches request paths against it directly; the Watcher
API first reads a path the way Watcher's clients expect
(api/controllers/paths.py), then takes the handler of the row it names.
Both answer a path without a row with a 404, and a method the path has no
row for with a 405 naming the methods it has (``allowed``), each in its own
wire format.
"""

import routes
import webob.exc

# A path template's variable segment: ``{name}``.
VARIABLE = '{'


class Table:
    """Rows ``(method, path, handler)``; a path may hold ``{name}``
    segments. Each row is served under every prefix of ``prefixes``;
    ``requirements`` are the regular expressions of prefixes' variables."""

    def __init__(self, rows, prefixes=('',), requirements=None):
        self.rows = tuple(rows)
        self._handlers = {(method, path): handler
                          for method, path, handler in self.rows}
        self.mapper = routes.Mapper()
        for method, path, handler in self.rows:
            for prefix in prefixes:
                self.mapper.connect(None, prefix + path, handler=handler,
                                    conditions={'method': [method]},
                                    requirements=requirements or {})

    def match(self, method, path):
        """``(handler, {variable: value})`` of the row ``path`` and
        ``method`` match, or None."""
        found = self.mapper.match(path, {'REQUEST_METHOD': method})
        if found is None:
            return None
        found = dict(found)
        return found.pop('handler'), found

    def handler(self, method, path):
        """The handler of the row ``(method, path)``, path as written in
        the table; None without one."""
        return self._handlers.get((method, path))

    def words(self):
        """Every fixed segment of the table's paths."""
        return frozenset(segment for _, path, _ in self.rows
                         for segment in path.split('/')
                         if segment and not segment.startswith(VARIABLE))


def not_found():
    return webob.exc.HTTPNotFound()


def bad_request():
    return webob.exc.HTTPBadRequest()


def method_not_allowed(allowed=()):
    """405; ``allowed``: the methods the path serves (the Allow header),
    none to leave the header out."""
    refusal = webob.exc.HTTPMethodNotAllowed()
    if allowed:
        refusal.allow = sorted(allowed)
    return refusal
