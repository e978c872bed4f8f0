"""Reading resources: one ``View`` per API resource, one way to page.

A view is the SELECT that the API shows for a resource: the table's
columns plus the names and UUIDs of what it points to, fetched in the same
statement so that a page of 50 rows costs one query, not 50.
"""

import dataclasses
from collections.abc import Callable

import sqlalchemy as sa
from oslo_db.sqlalchemy import utils as db_utils
from oslo_utils import uuidutils

from watcher_ha.db import engine


@dataclasses.dataclass(frozen=True)
class View:
    model: type
    not_found: type
    not_found_arg: str
    # Labelled columns of joined tables, and the joins that bring them.
    extra_columns: tuple = ()
    joins: tuple = ()
    # Rows the API must not show (archived ones), as a WHERE clause.
    visible: Callable | None = None
    # How a path identifier is looked up: 'uuid', 'name' or 'id'.
    lookup: tuple = ('uuid',)
    # Query filter name -> function(value) returning a WHERE clause.
    filters: dict = dataclasses.field(default_factory=dict)

    def select(self, archived_too=False):
        table = self.model.__table__
        stmt = sa.select(*table.columns, *self.extra_columns).select_from(
            table)
        for target, onclause, outer in self.joins:
            stmt = stmt.join(target, onclause, isouter=outer)
        if self.visible is not None and not archived_too:
            stmt = stmt.where(self.visible())
        return stmt

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


def by_uuid_or_name(model):
    """Filter builder for a reference given as UUID or name."""
    def clause(value):
        if uuidutils.is_uuid_like(value):
            return model.uuid == value
        return model.name == value
    return clause


def get_row(context, view, ident, archived_too=False):
    """The visible row ``ident`` names, as a dict, or the view's 404."""
    clause = view.ident_clause(ident)
    if clause is None:
        raise view.not_found(**{view.not_found_arg: ident})
    with engine.reader.using(context) as session:
        row = session.execute(
            view.select(archived_too).where(clause)).first()
    if row is None:
        raise view.not_found(**{view.not_found_arg: ident})
    return dict(row._mapping)


def list_rows(context, view, paging, filters=None):
    """A page of visible rows, as dicts, after ``paging.marker``."""
    stmt = view.select()
    for name, value in (filters or {}).items():
        if value is not None:
            stmt = stmt.where(view.filters[name](value))
    sort_keys = [paging.sort_key]
    if paging.sort_key != 'id':
        sort_keys.append('id')
    with engine.reader.using(context) as session:
        marker = None
        if paging.marker is not None:
            marker = session.execute(
                sa.select(view.model).where(
                    view.ident_clause(paging.marker))).scalar()
            if marker is None:
                raise view.not_found(**{view.not_found_arg: paging.marker})
        stmt = db_utils.paginate_query(
            stmt, view.model, paging.limit, sort_keys, marker=marker,
            sort_dir=paging.sort_dir)
        return [dict(row._mapping) for row in session.execute(stmt)]
