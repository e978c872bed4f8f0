"""The hosts a decision engine watches for failures in Nova's view
(decision_engine/instance_ha/failure_detection.py), and what was already
reported of them.

Reads only: a failure found is recorded by
``host_notifications.create_notification``, as a monitor's report is, so
that its segment's lock and duplicate rule apply to it too.
"""

import dataclasses
import datetime

import sqlalchemy as sa

from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import engine
from watcher_ha.db import models

Segment = models.FailoverSegment
Host = models.SegmentHost
Notification = models.HostNotification


@dataclasses.dataclass(frozen=True)
class WatchedHost:
    name: str
    uuid: str
    segment_uuid: str


@dataclasses.dataclass(frozen=True)
class Reports:
    """What was reported of one host: whether a report of its failure
    waits for or is in a recovery, and when the latest was generated."""
    in_recovery: bool
    latest: datetime.datetime | None


def watched(context):
    """{name: WatchedHost} of the hosts of enabled segments that are not
    on maintenance: those whose failure a monitor's report would have
    recovered."""
    with engine.reader.connection.using(context) as conn:
        rows = conn.execute(sa.select(
            Host.name, Host.uuid, Segment.uuid).join(
                Segment, Segment.id == Host.failover_segment_id).where(
                Segment.enabled.is_(True),
                Host.on_maintenance.is_(False)))
        return {name: WatchedHost(name, uuid, segment_uuid)
                for name, uuid, segment_uuid in rows}


def reports(context, host_uuids):
    """{host uuid: Reports} of the COMPUTE_HOST notifications of
    ``host_uuids`` (a host never reported is absent)."""
    if not host_uuids:
        return {}
    in_recovery = sa.func.sum(sa.case(
        (Notification.state.in_(statuses.IN_RECOVERY), 1), else_=0))
    with engine.reader.connection.using(context) as conn:
        rows = conn.execute(sa.select(
            Notification.source_host_uuid, in_recovery,
            sa.func.max(Notification.generated_time)).where(
                Notification.type == statuses.COMPUTE_HOST,
                Notification.source_host_uuid.in_(sorted(host_uuids)))
            .group_by(Notification.source_host_uuid))
        return {uuid: Reports(bool(busy), latest)
                for uuid, busy, latest in rows}
