"""Failover segments and their hosts.

A segment, and every host in it, is "in use" while a notification of the
segment waits for, or is in, a recovery (status new, running or error):
neither may then be changed or deleted, so that a recovery never finds its
segment rewritten under it. Each such write locks the segment's row first
(its first statement, so that SQLite takes its write lock at once), as a
notification's arrival does (db/host_notifications.py), so that the check
and the write are one step against any API worker.
"""

import sqlalchemy as sa
from oslo_db import exception as db_exc
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


SEGMENT_VIEW = query.View(
    model=Segment, not_found=exception.SegmentNotFound,
    not_found_arg='segment', internal=query.INSTANCE_HA_INTERNAL,
    filters=query.equality_filters(
        Segment, ('recovery_method', 'service_type', 'enabled')),
    marker_lookup=('id',), marker_not_found=exception.MarkerNotFound,
    invalid_sort_key=exception.InvalidSortKey)
HOST_VIEW = query.View(
    model=Host, not_found=exception.HostNotFound, not_found_arg='host',
    internal=query.INSTANCE_HA_INTERNAL,
    filters=query.equality_filters(
        Host, ('failover_segment_id', 'type', 'control_attributes', 'name',
               'reserved', 'on_maintenance')),
    marker_lookup=('id',), marker_not_found=exception.MarkerNotFound,
    invalid_sort_key=exception.InvalidSortKey)


def _host_view(host, segment):
    shown = models.as_dict(host)
    shown['failover_segment'] = models.as_dict(segment)
    return shown


# Segments.

def list_segments(context, paging, filters):
    """``filters``: column name -> value, each compared for equality."""
    return query.list_rows(context, SEGMENT_VIEW, paging, filters)


def _segment(session, uuid, lock=False):
    """The segment ``uuid``; ``lock``: held for the transaction, which
    must not have read anything before (transitions.lock)."""
    if lock:
        transitions.lock(session, Segment, [Segment.uuid == uuid])
    return query.one(session, Segment,
                     exception.SegmentNotFound(segment=uuid),
                     Segment.uuid == uuid)


def get_segment(context, uuid):
    with engine.reader.using(context) as session:
        return models.as_dict(_segment(session, uuid))


@engine.retry_on_deadlock
def create_segment(context, values):
    try:
        with engine.writer.using(context) as session:
            row = Segment(uuid=uuidutils.generate_uuid(), **values)
            session.add(row)
            session.flush()
            return models.as_dict(row)
    except db_exc.DBDuplicateEntry:
        raise exception.SegmentNameTaken(name=values['name'])


def _in_use(session, segment):
    return session.execute(sa.select(sa.exists().where(
        Notification.failover_segment_uuid == segment.uuid,
        Notification.state.in_(statuses.IN_RECOVERY)))).scalar()


@engine.retry_on_deadlock
def update_segment(context, uuid, values):
    try:
        with engine.writer.using(context) as session:
            row = _segment(session, uuid, lock=True)
            if _in_use(session, row):
                raise exception.SegmentInUse(segment=uuid)
            for name, value in values.items():
                setattr(row, name, value)
            session.flush()
            return models.as_dict(row)
    except db_exc.DBDuplicateEntry:
        raise exception.SegmentNameTaken(name=values.get('name'))


@engine.retry_on_deadlock
def delete_segment(context, uuid):
    """Delete the segment and its hosts."""
    with engine.writer.using(context) as session:
        row = _segment(session, uuid, lock=True)
        if _in_use(session, row):
            raise exception.SegmentInUseDelete(segment=uuid)
        # Explicitly, not by the foreign key's cascade: SQLite enforces
        # it only on connections that asked for foreign keys.
        session.execute(sa.delete(Host).where(
            Host.failover_segment_id == row.id))
        session.delete(row)


def every_segment(context):
    """Every segment with its hosts, in two queries: [{uuid, name,
    recovery_method, enabled, hosts: [{name, reserved, on_maintenance,
    claimed_by}]}], by id."""
    with engine.reader.connection.using(context) as conn:
        segments = conn.execute(sa.select(
            Segment.id, Segment.uuid, Segment.name, Segment.recovery_method,
            Segment.enabled).order_by(Segment.id)).mappings().all()
        hosts = conn.execute(sa.select(
            Host.failover_segment_id, Host.name, Host.reserved,
            Host.on_maintenance, Host.claimed_by).order_by(Host.id)).all()
    found = {row['id']: dict(row, hosts=[]) for row in segments}
    for segment_id, *host in hosts:
        if segment_id in found:
            found[segment_id]['hosts'].append(dict(zip(
                ('name', 'reserved', 'on_maintenance', 'claimed_by'), host,
                strict=True)))
    return [dict((k, v) for k, v in segment.items() if k != 'id')
            for segment in found.values()]


# Hosts.

def _host(session, segment, host_uuid):
    if not uuidutils.is_uuid_like(host_uuid):
        raise exception.HostNotFound(host=host_uuid)
    return query.one(session, Host,
                     exception.HostNotInSegment(host=host_uuid,
                                                segment=segment.uuid),
                     Host.uuid == host_uuid,
                     Host.failover_segment_id == segment.id)


def _segment_of_host(session, segment_uuid, host_uuid, lock=False):
    """The segment, locked if asked; a 404 naming the host when the
    segment does not exist (Masakari's answer)."""
    if not uuidutils.is_uuid_like(host_uuid):
        raise exception.HostNotFound(host=host_uuid)
    try:
        return _segment(session, segment_uuid, lock=lock)
    except exception.SegmentNotFound:
        raise exception.HostNotInSegment(host=host_uuid,
                                         segment=segment_uuid)


def list_hosts(context, segment_uuid, paging, filters):
    segment = get_segment(context, segment_uuid)
    rows = query.list_rows(context, HOST_VIEW, paging, dict(
        filters, failover_segment_id=segment['id']))
    return [dict(row, failover_segment=segment) for row in rows]


def get_host(context, segment_uuid, host_uuid):
    with engine.reader.using(context) as session:
        segment = _segment_of_host(session, segment_uuid, host_uuid)
        return _host_view(_host(session, segment, host_uuid), segment)


@engine.retry_on_deadlock
def create_host(context, segment_uuid, values):
    try:
        with engine.writer.using(context) as session:
            segment = _segment(session, segment_uuid, lock=True)
            row = Host(uuid=uuidutils.generate_uuid(),
                       failover_segment_id=segment.id, **values)
            session.add(row)
            session.flush()
            return _host_view(row, segment)
    except db_exc.DBDuplicateEntry:
        raise exception.HostNameTaken(name=values['name'])


def _host_to_change(session, segment_uuid, host_uuid, done):
    """The host and its segment, locked; 409 while the segment is in
    use."""
    segment = _segment_of_host(session, segment_uuid, host_uuid, lock=True)
    row = _host(session, segment, host_uuid)
    if _in_use(session, segment):
        raise exception.HostInUse(host=host_uuid, done=done)
    return segment, row


@engine.retry_on_deadlock
def update_host(context, segment_uuid, host_uuid, values):
    try:
        with engine.writer.using(context) as session:
            segment, row = _host_to_change(session, segment_uuid,
                                           host_uuid, 'updated')
            for name, value in values.items():
                setattr(row, name, value)
            if 'reserved' in values:
                # The operator decides: a host a failed recovery kept
                # claimed is its no longer.
                row.claimed_by = row.claimed_at = None
            session.flush()
            return _host_view(row, segment)
    except db_exc.DBDuplicateEntry:
        raise exception.HostNameTaken(name=values.get('name'))


@engine.retry_on_deadlock
def delete_host(context, segment_uuid, host_uuid):
    with engine.writer.using(context) as session:
        _segment, row = _host_to_change(session, segment_uuid, host_uuid,
                                        'deleted')
        session.delete(row)


@engine.retry_on_deadlock
def set_maintenance(context, segment_uuid, host_name):
    """Put a failed host of the segment on maintenance (its recovery is
    over): only an operator takes it off again. Not held by the rule for
    segments in use: the recovery holding it is the one writing."""
    with engine.writer.using(context) as session:
        session.execute(sa.update(Host).where(
            Host.name == host_name,
            Host.failover_segment_id.in_(sa.select(Segment.id).where(
                Segment.uuid == segment_uuid))).values(
                    on_maintenance=True))
