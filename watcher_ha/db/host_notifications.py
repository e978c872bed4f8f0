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

from watcher_ha.common.instance_ha import exception
from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import query
from watcher_ha.db import transitions

Segment = models.FailoverSegment
Host = models.SegmentHost
Notification = models.HostNotification
VMove = models.VMove

ON_MAINTENANCE = ('The host is on maintenance: the notification is '
                  'recorded and no recovery is run. Clear on_maintenance '
                  'once the host is repaired.')


NOTIFICATION_VIEW = query.View(
    model=Notification, not_found=exception.NotificationNotFound,
    not_found_arg='notification', internal=query.INSTANCE_HA_INTERNAL,
    filters=dict(
        query.equality_filters(
            Notification, ('status', 'source_host_uuid', 'type')),
        generated_since=lambda value: Notification.generated_time >= value),
    marker_lookup=('id',), marker_not_found=exception.MarkerNotFound,
    invalid_sort_key=exception.InvalidSortKey, attribute_keys=True)
VMOVE_VIEW = query.View(
    model=VMove, not_found=exception.VMoveNotFound, not_found_arg='vmove',
    internal=query.INSTANCE_HA_INTERNAL,
    filters=query.equality_filters(
        VMove, ('notification_uuid', 'status', 'type')),
    marker_lookup=('id',), marker_not_found=exception.MarkerNotFound,
    invalid_sort_key=exception.InvalidSortKey)


def list_notifications(context, paging, filters, generated_since=None):
    return query.list_rows(context, NOTIFICATION_VIEW, paging, dict(
        filters, generated_since=generated_since))


def _notification(session, uuid):
    return query.one(session, Notification,
                     exception.NotificationNotFound(notification=uuid),
                     Notification.uuid == uuid)


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
    return query.list_rows(context, VMOVE_VIEW, paging, dict(
        filters, notification_uuid=notification_uuid))


def get_vmove(context, notification_uuid, vmove_uuid):
    with engine.reader.using(context) as session:
        _moves_of(session, notification_uuid)
        return models.as_dict(query.one(
            session, VMove, exception.VMoveNotFound(vmove=vmove_uuid),
            VMove.uuid == vmove_uuid,
            VMove.notification_uuid == notification_uuid))
