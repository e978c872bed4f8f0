"""Response fields, declared once per resource.

Each resource module lists its fields in wire order with their JSON
Schema, the first microversion that shows them, and whether the short list
view shows them. Serializing a row and describing the response (for tests
and docs) both come from that one list.
"""

import dataclasses
import datetime
from collections.abc import Callable


UUID = {'type': 'string', 'format': 'uuid'}
NULLABLE_UUID = {'type': ['string', 'null']}
STRING = {'type': 'string'}
NULLABLE_STRING = {'type': ['string', 'null']}
BOOLEAN = {'type': 'boolean'}
INTEGER = {'type': 'integer'}
OBJECT = {'type': 'object'}
ARRAY = {'type': 'array'}
DATETIME = {'type': 'string', 'format': 'date-time'}
NULLABLE_DATETIME = {'type': ['string', 'null']}
LINKS = {'type': 'array', 'items': {
    'type': 'object', 'required': ['href', 'rel'],
    'properties': {'href': STRING, 'rel': STRING}}}


def iso_utc(value):
    """Watcher's timestamp format: ISO 8601 with an explicit +00:00."""
    if value is None:
        return None
    return value.replace(tzinfo=datetime.timezone.utc).isoformat()


def iso_naive(value):
    return None if value is None else value.isoformat()


@dataclasses.dataclass(frozen=True)
class Output:
    """What a getter may need beyond the row: the request's versions
    (microversion.Requested), the view (short list or detail) and how to
    build links."""
    version: object
    detail: bool
    links: Callable


@dataclasses.dataclass(frozen=True)
class Field:
    name: str
    schema: dict
    # Shown in the short list view too, not only in show and /detail.
    in_list: bool = False
    # The first version showing it: 'X.Y' (infra-optim) or 'watcher-ha
    # X.Y'.
    since: str | None = None
    # getter(row, output) -> value; by default the column of that name.
    getter: Callable | None = None

    def visible(self, version, detail):
        if not (detail or self.in_list):
            return False
        return self.since is None or version.at_least(self.since)


def _plain(name):
    return lambda row, output: row[name]


class Fields:

    def __init__(self, resource, *fields):
        self.resource = resource
        self.fields = fields
        self._plans = {}

    def _plan(self, version, detail):
        key = (version, detail)
        if key not in self._plans:
            self._plans[key] = [
                (f.name, f.getter or _plain(f.name))
                for f in self.fields if f.visible(version, detail)]
        return self._plans[key]

    def render(self, row, output):
        """The JSON object for ``row`` as ``output`` asks for it."""
        return {name: get(row, output)
                for name, get in self._plan(output.version, output.detail)}

    def schema(self, version, detail):
        """JSON Schema of one rendered object at ``version``."""
        visible = [f for f in self.fields if f.visible(version, detail)]
        return {'type': 'object',
                'properties': {f.name: f.schema for f in visible},
                'required': [f.name for f in visible],
                'additionalProperties': False}


def timestamp(name):
    return lambda row, output: iso_utc(row[name])


def naive_timestamp(name):
    return lambda row, output: iso_naive(row[name])


def links_of(ident_column='uuid'):
    return lambda row, output: output.links(row[ident_column])


def always_none(row, output):
    return None
