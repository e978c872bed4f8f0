"""The server moves of a recovery (Masakari's vmoves): one row per server
of a notification, written by the evacuate action as the move goes."""

import collections

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


def record(context, notification_uuid, instance_uuid, unless=(), **values):
    """Create or update the move of ``instance_uuid`` for the recovery of
    ``notification_uuid`` with ``values`` (status, dest_host, times...):
    a recovery run again after a take-over updates the same row, unless
    its status is one of ``unless``."""
    record_many(context, notification_uuid, {instance_uuid: values},
                unless=unless)


@engine.retry_on_deadlock
def record_many(context, notification_uuid, moves, unless=(), **common):
    """``record`` for each of ``moves`` ({instance_uuid: its values}, each
    with ``common`` too), in one transaction: one read, one INSERT of
    the moves not recorded yet, one UPDATE per distinct set of values of
    the others (a claim's: one per destination), so that a recovery of
    a hundred servers records them at once."""
    try:
        _record_many(context, notification_uuid, moves, unless, common)
    except db_exc.DBDuplicateEntry:
        # Another writer created one between our read and INSERT: it is
        # there to update now.
        _record_many(context, notification_uuid, moves, unless, common)


def _record_many(context, notification_uuid, moves, unless, common):
    now = models.utcnow()
    of_recovery = VMove.notification_uuid == notification_uuid
    with engine.writer.using(context) as session:
        recorded = set(session.execute(sa.select(VMove.instance_uuid).where(
            of_recovery, VMove.instance_uuid.in_(sorted(moves)))).scalars())
        new = []
        # {the values, sorted: the servers whose rows take them}
        updates = collections.defaultdict(list)
        for instance_uuid, values in sorted(moves.items()):
            values = dict(common, **values)
            if instance_uuid in recorded:
                updates[tuple(sorted(values.items()))].append(instance_uuid)
                continue
            new.append(dict(values, uuid=uuidutils.generate_uuid(),
                            notification_uuid=notification_uuid,
                            instance_uuid=instance_uuid,
                            type=values.get('type', 'evacuation'),
                            status=values.get('status', PENDING),
                            created_at=now))
        if new:
            session.execute(sa.insert(VMove), _same_keys(new))
        for values, instance_uuids in updates.items():
            where = [of_recovery, VMove.instance_uuid.in_(instance_uuids)]
            if unless:
                where.append(VMove.status.not_in(unless))
            session.execute(sa.update(VMove).where(*where).values(
                updated_at=now, **dict(values)))


def _same_keys(rows):
    """``rows`` each with every key any of them has (None where it has
    none): one INSERT takes one set of columns."""
    keys = set().union(*rows)
    return [dict(dict.fromkeys(keys), **row) for row in rows]


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
