"""Host notifications (failures reported by monitors) and the server moves
of their recoveries.

A notification is accepted in one transaction that locks its host's
segment row: the duplicate check, the maintenance check and the insert
are then one step against any other API worker receiving the same report
(a monitor retries on a timeout, possibly through another controller), and
against a concurrent change of the segment (db/failover_segments.py).
"""

import datetime

import sqlalchemy as sa
from oslo_utils import uuidutils

from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import pages
from watcher_ha.db import transitions
from watcher_ha.instance_ha import exception
from watcher_ha.instance_ha import statuses

Segment = models.FailoverSegment
Host = models.SegmentHost
Notification = models.HostNotification
VMove = models.VMove

ON_MAINTENANCE = ('The host is on maintenance: the notification is '
                  'recorded and no recovery is run. Clear on_maintenance '
                  'once the host is repaired.')


def list_notifications(context, paging, filters, generated_since=None):
    where = [pages.column(Notification, name) == value
             for name, value in filters.items()]
    if generated_since is not None:
        where.append(Notification.generated_time >= generated_since)
    with engine.reader.using(context) as session:
        return [models.as_dict(row)
                for row in pages.page(session, Notification, paging,
                                      *where)]


def _notification(session, uuid):
    row = session.execute(sa.select(Notification).where(
        Notification.uuid == uuid)).scalar_one_or_none()
    if row is None:
        raise exception.NotificationNotFound(notification=uuid)
    return row


def get_notification(context, uuid):
    with engine.reader.using(context) as session:
        return models.as_dict(_notification(session, uuid))


def _duplicate(session, host, values, window):
    """An earlier report of the same failure: same host, type and
    payload, generated within ``window`` of this one (either side: a
    monitor's retry may arrive after a later report)."""
    generated = values['generated_time']
    candidates = session.execute(sa.select(Notification.payload).where(
        Notification.source_host_uuid == host.uuid,
        Notification.type == values['type'],
        Notification.generated_time >= generated - window,
        Notification.generated_time <= generated + window)).scalars()
    return any(payload == values['payload'] for payload in candidates)


def _segment_id_of(context, hostname):
    with engine.reader.using(context) as session:
        segment_id = session.execute(sa.select(Host.failover_segment_id).where(
            Host.name == hostname)).scalar()
    if segment_id is None:
        raise exception.UnknownHostName(name=hostname)
    return segment_id


def create_notification(context, values, duplicate_window):
    """Record a monitor's report ``values`` (type, hostname,
    generated_time as naive UTC, payload) and return its row.

    A report from a host on maintenance is recorded as ignored; a
    duplicate of one received within ``duplicate_window`` seconds is
    refused (409).
    """
    window = datetime.timedelta(seconds=duplicate_window)
    while True:
        row = _create(context, values, window,
                      _segment_id_of(context, values['hostname']))
        if row is not None:
            return row
        # The host moved to another segment meanwhile: again.


@engine.retry_on_deadlock
def _create(context, values, window, segment_id):
    with engine.writer.using(context) as session:
        # The segment's lock is the transaction's first statement: on
        # MariaDB the transaction's snapshot is only taken after the wait
        # for it, so that the duplicate check below sees every report
        # committed before (SQLite's write transactions hold the write
        # lock from their start).
        transitions.lock(session, Segment, [Segment.id == segment_id])
        host = session.execute(sa.select(Host).where(
            Host.name == values['hostname'])).scalar_one_or_none()
        if host is None:
            raise exception.UnknownHostName(name=values['hostname'])
        if host.failover_segment_id != segment_id:
            return None
        segment = session.get(Segment, segment_id)
        if _duplicate(session, host, values, window):
            raise exception.DuplicateNotification(host=host.name,
                                                  type=values['type'])
        ignored = host.on_maintenance
        row = Notification(
            uuid=uuidutils.generate_uuid(),
            generated_time=values['generated_time'],
            type=values['type'], payload=values['payload'],
            source_host_uuid=host.uuid,
            failover_segment_uuid=segment.uuid,
            state=statuses.IGNORED if ignored else statuses.NEW,
            message=ON_MAINTENANCE if ignored else None)
        session.add(row)
        session.flush()
        return models.as_dict(row)


# VM moves.

def _moves_of(session, notification_uuid):
    notification = _notification(session, notification_uuid)
    if notification.type != statuses.COMPUTE_HOST:
        raise exception.NoVMoves(notification=notification_uuid)
    return notification


def list_vmoves(context, notification_uuid, paging, filters):
    with engine.reader.using(context) as session:
        _moves_of(session, notification_uuid)
        rows = pages.page(session, VMove, paging,
                          VMove.notification_uuid == notification_uuid, *[
                              pages.column(VMove, name) == value
                              for name, value in filters.items()])
        return [models.as_dict(row) for row in rows]


def get_vmove(context, notification_uuid, vmove_uuid):
    with engine.reader.using(context) as session:
        _moves_of(session, notification_uuid)
        row = session.execute(sa.select(VMove).where(
            VMove.uuid == vmove_uuid,
            VMove.notification_uuid == notification_uuid)
        ).scalar_one_or_none()
        if row is None:
            raise exception.VMoveNotFound(vmove=vmove_uuid)
        return models.as_dict(row)
