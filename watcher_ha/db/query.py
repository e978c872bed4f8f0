"""Reading resources: one ``View`` per API resource, one way to page.

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
import threading

import sqlalchemy as sa
from oslo_utils import uuidutils

from watcher_ha.db import engine


# Bookkeeping columns, never a sort key (action plans' audit_round and
# planned_by are not in the API at all).
INTERNAL = frozenset(('version', 'live_name', 'audit_round', 'planned_by',
                      'webhook_triggered_at', 'request_id'))


@dataclasses.dataclass(frozen=True)
class Reference:
    """Columns shown from the row that a foreign key points to."""
    foreign_key: str
    model: type
    # {label in the result: column of the referenced table}
    columns: dict
    optional: bool = False


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
            if not isinstance(c.type, sa.JSON) and c.name not in INTERNAL)

    def ident_kind(self, ident):
        """How ``ident`` names a row: 'uuid', 'id', 'name' or None."""
        if 'uuid' in self.lookup and uuidutils.is_uuid_like(ident):
            return 'uuid'
        # ASCII digits only: str.isdigit() accepts '¹', which int() refuses.
        if ('id' in self.lookup and ident.isascii() and ident.isdigit()
                and len(ident) < 19):
            return 'id'
        if 'name' in self.lookup:
            return 'name'
        return None


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
    return dict(row._mapping)


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


def _after_marker(columns, descending, shape):
    """Keyset condition: after the marker in (k1, k2, ...) order."""
    values = [sa.bindparam('marker_%d' % i) for i in range(len(columns))]
    alternatives = []
    for i, column in enumerate(columns):
        ties = [_same(columns[j], shape[j], values[j]) for j in range(i)]
        alternatives.append(sa.and_(
            *ties, _after(column, descending, shape[i], values[i])))
    return sa.or_(*alternatives)


def _list_statement(view, filter_names, sort_keys, descending, limit,
                    shape):
    def build():
        stmt = view.rows()
        for name in filter_names:
            stmt = stmt.where(view.filters[name](
                sa.bindparam('filter_' + name)))
        columns = [view.model.__table__.c[key] for key in sort_keys]
        if shape is not None:
            stmt = stmt.where(_after_marker(columns, descending, shape))
        for column in columns:
            stmt = stmt.order_by(*_ordering(column, descending))
        page = stmt.limit(limit).subquery('page')
        return view.shown(page).order_by(*[
            term for key in sort_keys
            for term in _ordering(page.c[key], descending)])

    return _cached(('list', view, filter_names, sort_keys, descending,
                    limit, shape), build)


def _marker_row(conn, view, ident):
    kind = view.ident_kind(ident)
    row = None
    if kind is not None:
        stmt = _cached(('marker', view, kind), lambda: view.rows().where(
            getattr(view.model, kind) == sa.bindparam('ident')))
        row = conn.execute(stmt, {'ident': _ident_value(kind, ident)}).first()
    if row is None:
        raise view.not_found(**{view.not_found_arg: ident})
    return row._mapping


def list_rows(context, view, paging, filters=None):
    """A page of visible rows, as dicts, after ``paging.marker``."""
    active = {name: value for name, value in (filters or {}).items()
              if value is not None}
    sort_keys = (paging.sort_key,)
    if paging.sort_key != 'id':
        sort_keys += ('id',)
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
                               paging.sort_dir == 'desc', paging.limit,
                               _marker_shape(sort_keys, marker))
        return [dict(row._mapping) for row in conn.execute(stmt, params)]
