"""Reading resources: one ``View`` per API resource, one way to page,
for the Watcher API (a sort key, a UUID marker) and the instance-ha API
(Masakari's several sort keys, each with its direction, and the integer
``id`` of the last row seen as marker) alike.

A view is what the API shows of a table: its columns plus the UUIDs and
names of the rows it refers to, fetched in one statement so that a page of
50 rows costs one query, not 50. The page is cut from the table alone in a
subquery and only then joined to what it refers to: that keeps every
database on the primary or sort key's order instead of sorting the whole
join (MariaDB spent 50 ms per page on 10,000 audits otherwise).

Building those statements costs SQLAlchemy more than running them, so each
shape of statement is built once, with bound parameters for the values.
"""

import dataclasses
import datetime
import threading

import sqlalchemy as sa
from oslo_utils import uuidutils

from watcher_ha.db import engine
from watcher_ha.db import models


# Bookkeeping columns, never a sort key (action plans' audit_round and
# planned_by are not in the API at all).
INTERNAL = frozenset(('version', 'live_name', 'audit_round', 'planned_by',
                      'webhook_triggered_at', 'request_id', 'lock_count',
                      # Not Watcher 17's sort keys.
                      'audit_pipeline_id', 'audit_pipeline_stage_id'))
# Those of instance HA's tables: which daemon owns a row, a recovery's
# audit and attempts, a reserved host's holder.
INSTANCE_HA_INTERNAL = frozenset((
    'version', 'claimed_by', 'claimed_at', 'hostname', 'recovery_audit_uuid',
    'attempts', 'lock_count'))


@dataclasses.dataclass(frozen=True)
class Reference:
    """Columns shown from the row that a foreign key points to."""
    foreign_key: str
    model: type
    # {label in the result: column of the referenced table}
    columns: dict
    optional: bool = False


@dataclasses.dataclass(frozen=True)
class Paging:
    """What page of a list to read: ``sort``, (column, 'asc' or 'desc')
    pairs, the first deciding; at most ``limit`` rows (None: all); after
    the row ``marker`` names. The API's own paging objects offer the same
    three attributes."""
    sort: tuple = (('created_at', 'desc'),)
    limit: int | None = None
    marker: str | None = None


@dataclasses.dataclass(frozen=True, eq=False)
class View:
    model: type
    not_found: type
    not_found_arg: str
    references: tuple = ()
    # Archived rows (deleted_at set) are hidden from the API.
    archivable: bool = False
    # How a path identifier is looked up: 'uuid', 'name' or 'id'.
    lookup: tuple = ('uuid',)
    # Query filter name -> function(bound parameter) returning a WHERE
    # clause on the viewed table's own columns.
    filters: dict = dataclasses.field(default_factory=dict)
    # Columns the API does not show, and may not sort by.
    internal: frozenset = INTERNAL
    # How a marker names its row ('uuid', 'name', 'id'; None: as a path
    # identifier), and the error of one that names none (None: the
    # view's 404).
    marker_lookup: tuple | None = None
    marker_not_found: type | None = None
    # The error of a sort key the view does not offer (None: the caller
    # checked the keys).
    invalid_sort_key: type | None = None
    # Rows keyed by the model's attribute names, where a column's name
    # differs (Masakari's column names kept under the names every row
    # with a life cycle has here); otherwise by column names.
    attribute_keys: bool = False

    def result(self, row):
        """``row`` (a result row) as the dict the view returns."""
        found = dict(row._mapping)
        if not self.attribute_keys:
            return found
        return {_attribute_names(self.model).get(key, key): value
                for key, value in found.items()}

    def rows(self, archived_too=False):
        """SELECT of the table's own rows, archived ones left out."""
        stmt = sa.select(self.model.__table__)
        if self.archivable and not archived_too:
            stmt = stmt.where(self.model.deleted_at.is_(None))
        return stmt

    def shown(self, rows):
        """The rows of the ``rows`` subquery with their references."""
        columns, source = [], rows
        for index, ref in enumerate(self.references):
            target = sa.alias(ref.model.__table__, 'ref%d' % index)
            columns += [target.c[column].label(label)
                        for label, column in ref.columns.items()]
            source = source.join(target,
                                 rows.c[ref.foreign_key] == target.c.id,
                                 isouter=ref.optional)
        return sa.select(rows, *columns).select_from(source)

    def sort_keys(self):
        """Columns a list may be sorted by: scalar ones the API shows."""
        return frozenset(
            c.name for c in self.model.__table__.columns
            if not isinstance(c.type, sa.JSON)
            and c.name not in self.internal)

    def ident_kind(self, ident, lookup=None):
        """How ``ident`` names a row: 'uuid', 'id', 'name' or None."""
        lookup = lookup or self.lookup
        if 'uuid' in lookup and uuidutils.is_uuid_like(ident):
            return 'uuid'
        # ASCII digits only: str.isdigit() accepts '¹', which int() refuses.
        if ('id' in lookup and ident.isascii() and ident.isdigit()
                and len(ident) < 19):
            return 'id'
        if 'name' in lookup:
            return 'name'
        return None


_ATTRIBUTES = {}


def _attribute_names(model):
    names = _ATTRIBUTES.get(model)
    if names is None:
        names = _ATTRIBUTES[model] = {
            attr.columns[0].name: attr.key
            for attr in sa.inspect(model).column_attrs}
    return names


def equal_to(column):
    """Filter: the column equals the value given."""
    return lambda value: column == value


def equality_filters(model, names):
    """{name: filter} comparing each column ``names`` lists for
    equality."""
    return {name: equal_to(model.__table__.c[name]) for name in names}


def refers_to(foreign_key, model):
    """Filter on a reference given as the referenced row's UUID or name."""
    def clause(value):
        match = model.uuid == value
        if hasattr(model, 'name'):
            match = sa.or_(match, model.name == value)
        return foreign_key.in_(sa.select(model.id).where(match))
    return clause


_STATEMENTS = {}
_STATEMENTS_LOCK = threading.Lock()


def _cached(key, build):
    statement = _STATEMENTS.get(key)
    if statement is None:
        statement = build()
        with _STATEMENTS_LOCK:
            if len(_STATEMENTS) > 4096:
                _STATEMENTS.clear()
            _STATEMENTS[key] = statement
    return statement


def _ident_value(kind, ident):
    return int(ident) if kind == 'id' else ident


def get_row(context, view, ident, archived_too=False):
    """The visible row ``ident`` names, as a dict, or the view's 404."""
    kind = view.ident_kind(ident)
    if kind is None:
        raise view.not_found(**{view.not_found_arg: ident})

    def build():
        column = getattr(view.model, kind)
        rows = view.rows(archived_too).where(
            column == sa.bindparam('ident')).subquery('row')
        return view.shown(rows)

    stmt = _cached(('get', view, kind, archived_too), build)
    with engine.reader.connection.using(context) as conn:
        row = conn.execute(stmt, {'ident': _ident_value(kind, ident)}).first()
    if row is None:
        raise view.not_found(**{view.not_found_arg: ident})
    return view.result(row)


def _marker_shape(sort_keys, marker):
    """What the statement must know of the marker row: per sort key,
    whether its value is NULL (compared differently) or bound."""
    if marker is None:
        return None
    return tuple(marker[key] is None for key in sort_keys)


def _ordering(column, descending):
    """ORDER BY terms: NULL sorts as the smallest value everywhere (the
    databases disagree by default)."""
    direction = sa.desc if descending else sa.asc
    if not column.nullable:
        return [direction(column)]
    return [direction(column.is_not(None)), direction(column)]


def _after(column, descending, is_null, value):
    """Rows strictly after the marker's value of ``column``."""
    if is_null:
        return sa.false() if descending else column.is_not(None)
    if descending:
        return sa.or_(column < value, column.is_(None))
    return column > value


def _same(column, is_null, value):
    return column.is_(None) if is_null else column == value


def _after_marker(columns, directions, shape):
    """Keyset condition: after the marker in (k1, k2, ...) order, each
    key in its own direction (True: descending)."""
    values = [sa.bindparam('marker_%d' % i) for i in range(len(columns))]
    alternatives = []
    for i, column in enumerate(columns):
        ties = [_same(columns[j], shape[j], values[j]) for j in range(i)]
        alternatives.append(sa.and_(
            *ties, _after(column, directions[i], shape[i], values[i])))
    return sa.or_(*alternatives)


def _list_statement(view, filter_names, sort_keys, directions, limit,
                    shape):
    def build():
        stmt = view.rows()
        for name in filter_names:
            stmt = stmt.where(view.filters[name](
                sa.bindparam('filter_' + name)))
        columns = [view.model.__table__.c[key] for key in sort_keys]
        if shape is not None:
            stmt = stmt.where(_after_marker(columns, directions, shape))
        for column, descending in zip(columns, directions, strict=True):
            stmt = stmt.order_by(*_ordering(column, descending))
        page = stmt.limit(limit).subquery('page')
        return view.shown(page).order_by(*[
            term for key, descending in zip(sort_keys, directions, strict=True)
            for term in _ordering(page.c[key], descending)])

    return _cached(('list', view, filter_names, sort_keys, directions,
                    limit, shape), build)


def _marker_row(conn, view, ident):
    kind = view.ident_kind(ident, view.marker_lookup)
    row = None
    if kind is not None:
        stmt = _cached(('marker', view, kind), lambda: view.rows().where(
            getattr(view.model, kind) == sa.bindparam('ident')))
        row = conn.execute(stmt, {'ident': _ident_value(kind, ident)}).first()
    if row is None:
        if view.marker_not_found is not None:
            raise view.marker_not_found(marker=ident)
        raise view.not_found(**{view.not_found_arg: ident})
    return row._mapping


def _sort(view, paging):
    """(sort keys, directions) of ``paging``, with ``id`` last so that
    rows that tie on the others keep one order from page to page."""
    sort = tuple(paging.sort)
    if view.invalid_sort_key is not None:
        allowed = view.sort_keys()
        for key, _ in sort:
            if key not in allowed:
                raise view.invalid_sort_key(key=key)
    if 'id' not in (key for key, _ in sort):
        sort += (('id', sort[-1][1] if sort else 'desc'),)
    return (tuple(key for key, _ in sort),
            tuple(direction == 'desc' for _, direction in sort))


def list_rows(context, view, paging, filters=None):
    """A page of visible rows, as dicts, after ``paging.marker``;
    ``filters``: {name of one of the view's filters: value} (None
    values are no filter)."""
    active = {name: value for name, value in (filters or {}).items()
              if value is not None}
    sort_keys, directions = _sort(view, paging)
    params = {'filter_' + name: value for name, value in active.items()}
    # Reads use a plain connection: an ORM session's bookkeeping costs
    # more than the query itself on a page of 50 rows.
    with engine.reader.connection.using(context) as conn:
        marker = None
        if paging.marker is not None:
            marker = _marker_row(conn, view, paging.marker)
            params.update(('marker_%d' % i, marker[key])
                          for i, key in enumerate(sort_keys))
        stmt = _list_statement(view, tuple(sorted(active)), sort_keys,
                               directions, paging.limit,
                               _marker_shape(sort_keys, marker))
        return [view.result(row) for row in conn.execute(stmt, params)]


def one(session, model, missing, *where):
    """The ORM row of ``model`` that ``where`` picks, in ``session``;
    raises ``missing`` (an exception) when there is none."""
    row = session.execute(sa.select(model).where(*where)).scalar_one_or_none()
    if row is None:
        raise missing
    return row


def left_alone(context, model, grace_seconds, where, limit=50):
    """UUIDs of the rows of ``model`` matching ``where`` (a list of
    conditions) that nobody changed for ``grace_seconds``, oldest first:
    work waiting for an owner whose message may have been lost, for a
    sweep to take."""
    cutoff = models.utcnow() - datetime.timedelta(seconds=grace_seconds)
    with engine.reader.connection.using(context) as conn:
        return list(conn.execute(
            sa.select(model.uuid).where(
                *where,
                sa.func.coalesce(model.updated_at, model.created_at)
                <= cutoff)
            .order_by(model.id).limit(limit)).scalars())
