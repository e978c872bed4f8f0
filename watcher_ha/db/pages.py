"""Pages as the Masakari API cuts them: several sort keys, each with its
own direction, and a marker that is the integer ``id`` of the last row
seen (not its UUID, which Masakari refuses as an unknown marker).

oslo.db's ``paginate_query`` builds the keyset condition; the sort keys
are checked here first, so that only a scalar column of the table reaches
it (an attribute of the model that is not a column would raise there, a
JSON column could not be ordered on PostgreSQL).
"""

import dataclasses

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as db_utils

from watcher_ha.common.instance_ha import exception


@dataclasses.dataclass(frozen=True)
class Paging:
    sort_keys: tuple = ('created_at',)
    sort_dirs: tuple = ('desc',)
    limit: int | None = None
    marker: str | None = None


# Bookkeeping columns the API does not show.
INTERNAL = frozenset(('version', 'claimed_by', 'claimed_at', 'hostname',
                      'recovery_audit_uuid', 'attempts'))


def sort_keys_of(model):
    """{API sort key (a column's name): the model's attribute for it}."""
    return {attr.columns[0].name: attr.key
            for attr in sa.inspect(model).column_attrs
            if not isinstance(attr.columns[0].type, sa.JSON)
            and attr.columns[0].name not in INTERNAL}


def column(model, name):
    """The column ``name`` of ``model``'s table (a filter's name)."""
    return model.__table__.c[name]


def page(session, model, paging, *where):
    """The rows of ``model`` matching ``where`` on the page ``paging``
    asks for, as ORM objects."""
    allowed = sort_keys_of(model)
    for key in paging.sort_keys:
        if key not in allowed:
            raise exception.InvalidListInput(
                message=repr(db_exc.InvalidSortKey(key=key)))
    sort_keys = [allowed[key] for key in paging.sort_keys]
    sort_dirs = list(paging.sort_dirs)
    if 'id' not in sort_keys:
        # A unique last key: rows that tie on the others keep one order
        # from page to page.
        sort_keys.append('id')
        sort_dirs.append(sort_dirs[-1] if sort_dirs else 'desc')
    marker = None
    if paging.marker is not None:
        marker = _marker_row(session, model, paging.marker)
    query = session.query(model).filter(*where)
    query = db_utils.paginate_query(query, model, paging.limit, sort_keys,
                                    marker=marker, sort_dirs=sort_dirs)
    return query.all()


def _marker_row(session, model, marker):
    row = None
    # ASCII digits only: str.isdigit() accepts '¹', which int() refuses.
    if marker.isascii() and marker.isdigit() and len(marker) < 19:
        row = session.get(model, int(marker))
    if row is None:
        raise exception.MarkerNotFound(marker=marker)
    return row
