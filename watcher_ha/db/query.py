"""Reading resources: one ``View`` per API resource, one way to page.

A view is what the API shows of a table: its columns plus the UUIDs and
names of the rows it refers to, fetched in one statement so that a page of
50 rows costs one query, not 50. The page is cut from the table alone in a
subquery and only then joined to what it refers to: that keeps every
database on the primary or sort key's order instead of sorting the whole
join (MariaDB spent 50 ms per page on 10,000 audits otherwise).
"""

import dataclasses

import sqlalchemy as sa
from oslo_db.sqlalchemy import utils as db_utils
from oslo_utils import uuidutils

from watcher_ha.db import engine


@dataclasses.dataclass(frozen=True)
class Reference:
    """Columns shown from the row that a foreign key points to."""
    foreign_key: str
    model: type
    # {label in the result: column of the referenced table}
    columns: dict
    optional: bool = False


@dataclasses.dataclass(frozen=True)
class View:
    model: type
    not_found: type
    not_found_arg: str
    references: tuple = ()
    # Archived rows (deleted_at set) are hidden from the API.
    archivable: bool = False
    # How a path identifier is looked up: 'uuid', 'name' or 'id'.
    lookup: tuple = ('uuid',)
    # Query filter name -> function(value) returning a WHERE clause on the
    # viewed table's own columns.
    filters: dict = dataclasses.field(default_factory=dict)

    def rows(self, archived_too=False):
        """SELECT of the table's own rows, archived ones left out."""
        stmt = sa.select(self.model.__table__)
        if self.archivable and not archived_too:
            stmt = stmt.where(self.model.deleted_at.is_(None))
        return stmt

    def shown(self, rows):
        """The rows of the ``rows`` subquery with their references."""
        columns, joins = [], []
        for index, ref in enumerate(self.references):
            target = sa.alias(ref.model.__table__, 'ref%d' % index)
            columns += [target.c[column].label(label)
                        for label, column in ref.columns.items()]
            joins.append((target, rows.c[ref.foreign_key] == target.c.id,
                          ref.optional))
        stmt = sa.select(rows, *columns)
        source = rows
        for target, onclause, outer in joins:
            source = source.join(target, onclause, isouter=outer)
        return stmt.select_from(source)

    def sort_keys(self):
        return frozenset(c.name for c in self.model.__table__.columns)

    def ident_clause(self, ident):
        """WHERE clause for a uuid, a name or an integer id."""
        model = self.model
        if 'uuid' in self.lookup and uuidutils.is_uuid_like(ident):
            return model.uuid == ident
        if 'id' in self.lookup and ident.isdigit() and len(ident) < 19:
            return model.id == int(ident)
        if 'name' in self.lookup:
            return model.name == ident
        return None


def refers_to(foreign_key, model):
    """Filter on a reference given as the referenced row's UUID or name."""
    def clause(value):
        if uuidutils.is_uuid_like(value):
            column = model.uuid
        elif hasattr(model, 'name'):
            column = model.name
        else:
            return sa.false()
        return foreign_key.in_(sa.select(model.id).where(column == value))
    return clause


def get_row(context, view, ident, archived_too=False):
    """The visible row ``ident`` names, as a dict, or the view's 404."""
    clause = view.ident_clause(ident)
    if clause is None:
        raise view.not_found(**{view.not_found_arg: ident})
    rows = view.rows(archived_too).where(clause).subquery('row')
    with engine.reader.connection.using(context) as conn:
        row = conn.execute(view.shown(rows)).first()
    if row is None:
        raise view.not_found(**{view.not_found_arg: ident})
    return dict(row._mapping)


def list_rows(context, view, paging, filters=None):
    """A page of visible rows, as dicts, after ``paging.marker``."""
    stmt = view.rows()
    for name, value in (filters or {}).items():
        if value is not None:
            stmt = stmt.where(view.filters[name](value))
    sort_keys = [paging.sort_key]
    if paging.sort_key != 'id':
        sort_keys.append('id')
    direction = sa.desc if paging.sort_dir == 'desc' else sa.asc
    # Reads use a plain connection: an ORM session's bookkeeping costs
    # more than the query itself on a page of 50 rows.
    with engine.reader.connection.using(context) as conn:
        marker = None
        if paging.marker is not None:
            marker = conn.execute(view.rows().where(
                view.ident_clause(paging.marker))).first()
            if marker is None:
                raise view.not_found(**{view.not_found_arg: paging.marker})
        page = db_utils.paginate_query(
            stmt, view.model, paging.limit, sort_keys, marker=marker,
            sort_dir=paging.sort_dir).subquery('page')
        shown = view.shown(page).order_by(
            *(direction(page.c[key]) for key in sort_keys))
        return [dict(row._mapping) for row in conn.execute(shown)]
