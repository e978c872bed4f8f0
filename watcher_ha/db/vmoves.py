"""The server moves of a recovery (Masakari's vmoves): one row per server
of a notification, written by the evacuate action as the move goes."""

import sqlalchemy as sa
from oslo_db import exception as db_exc
from oslo_utils import uuidutils

from watcher_ha.db import engine
from watcher_ha.db import models

VMove = models.VMove

PENDING = 'pending'
ONGOING = 'ongoing'
SUCCEEDED = 'succeeded'
FAILED = 'failed'
IGNORED = 'ignored'


@engine.retry_on_deadlock
def record(context, notification_uuid, instance_uuid, unless=(), **values):
    """Create or update the move of ``instance_uuid`` for the recovery of
    ``notification_uuid`` with ``values`` (status, dest_host, times...):
    a recovery run again after a take-over updates the same row, unless
    its status is one of ``unless``."""
    try:
        _record(context, notification_uuid, instance_uuid, unless, values)
    except db_exc.DBDuplicateEntry:
        # Another writer created it between our UPDATE and INSERT: it is
        # there to update now.
        _record(context, notification_uuid, instance_uuid, unless, values)


def _record(context, notification_uuid, instance_uuid, unless, values):
    values = dict(values)
    where = [VMove.notification_uuid == notification_uuid,
             VMove.instance_uuid == instance_uuid]
    if unless:
        where.append(VMove.status.not_in(unless))
    with engine.writer.using(context) as session:
        if session.execute(sa.update(VMove).where(*where).values(
                updated_at=models.utcnow(), **values)).rowcount:
            return
        if unless and session.execute(sa.select(VMove.id).where(
                *where[:2])).first():
            return
        session.add(VMove(uuid=uuidutils.generate_uuid(),
                          notification_uuid=notification_uuid,
                          instance_uuid=instance_uuid,
                          type=values.pop('type', 'evacuation'),
                          status=values.pop('status', PENDING),
                          **values))


def of_server(context, notification_uuid, instance_uuid):
    """The move of ``instance_uuid`` in the recovery of
    ``notification_uuid``, as a dict; None if it has none."""
    with engine.reader.using(context) as session:
        row = session.execute(sa.select(VMove).where(
            VMove.notification_uuid == notification_uuid,
            VMove.instance_uuid == instance_uuid)).scalars().first()
        return None if row is None else models.as_dict(row)


def of(context, notification_uuid):
    """{instance_uuid: row} of the recovery's moves."""
    with engine.reader.using(context) as session:
        return {row.instance_uuid: models.as_dict(row)
                for row in session.execute(sa.select(VMove).where(
                    VMove.notification_uuid == notification_uuid)).scalars()}


def evacuations_since(context, instance_uuids, since, besides=None):
    """{instance_uuid: how many evacuations of it succeeded since
    ``since``}, those of the recovery ``besides`` left out."""
    if not instance_uuids:
        return {}
    where = [VMove.instance_uuid.in_(sorted(instance_uuids)),
             VMove.status == SUCCEEDED, VMove.end_time >= since]
    if besides:
        where.append(VMove.notification_uuid != besides)
    with engine.reader.connection.using(context) as conn:
        return dict(conn.execute(sa.select(
            VMove.instance_uuid, sa.func.count()).where(*where)
            .group_by(VMove.instance_uuid)).all())
