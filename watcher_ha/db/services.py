"""The services registry: which daemon runs where, and when it last
reported."""

import sqlalchemy as sa
from oslo_db import exception as db_exc

from watcher_ha.common import exception
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query

VIEW = query.View(
    model=models.Service,
    not_found=exception.ServiceNotFound, not_found_arg='service',
    lookup=('id', 'name'),
)


@engine.retry_on_deadlock
def heartbeat(context, name, host):
    """Record that ``name`` on ``host`` is alive (registering it the first
    time); safe when two processes of one host race."""
    now = models.utcnow()
    table = models.Service
    with engine.writer.using(context) as session:
        updated = session.execute(sa.update(table).where(
            table.host == host, table.name == name).values(
                last_seen_up=now, updated_at=now)).rowcount
        if updated:
            return
        try:
            with session.begin_nested():
                session.execute(sa.insert(table).values(
                    name=name, host=host, last_seen_up=now,
                    created_at=now))
        except db_exc.DBDuplicateEntry:
            session.execute(sa.update(table).where(
                table.host == host, table.name == name).values(
                    last_seen_up=now, updated_at=now))
