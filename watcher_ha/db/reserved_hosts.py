"""Reserved hosts of a failover segment, held by recoveries.

A recovery (named by its notification) takes hold of the reserved hosts it
needs in one transaction that first locks the segment's row, then moves
each chosen host with a conditional UPDATE (still reserved, held by
nobody): two failures handled at once on different controllers are
serialised by the lock, and if anything lets two transactions race past
it anyway, the second one's UPDATE finds the host taken and the hold is
made again from what is left. No reserved host ever serves two
recoveries.

On a Galera cluster, two controllers writing through two nodes each
lock the row on their own node; the lock is a write (transitions.lock),
so the second of the two to commit fails certification (a deadlock) and
is run again from the start, its reads fresh. Were it not, the hosts'
conditional UPDATEs would still conflict the same way: a host is never
held twice, either way (tests/functional/three_controllers/
test_galera_writes.py: 100 rounds through two nodes).

The lock is the database's, not a coordination backend's: a hold must
not wait on Redis when hosts fail, which is when controllers fail too.

A held host is no longer ``reserved`` (it becomes a normal host, as in
Masakari) and carries its recovery in ``claimed_by`` (the column's name
since the first schema) until the recovery settles: then the
hosts it used keep their servers and the others go back to the pool.
"""

import sqlalchemy as sa

from watcher_ha.db import engine
from watcher_ha.db import models
from watcher_ha.db import transitions

Segment = models.FailoverSegment
Host = models.SegmentHost

# Holds made again when a host went to another recovery under us.
ATTEMPTS = 5


class HoldLost(Exception):
    """Another recovery took a host between this one's read and write."""


def _names(session, *where):
    return [name for (name,) in session.execute(
        sa.select(Host.name).where(*where).order_by(Host.id))]


def kept_for_failover(context):
    """Names of the segment hosts no optimisation may fill: reserved,
    held by a recovery that runs, or on maintenance."""
    with engine.reader.using(context) as session:
        return frozenset(_names(session, sa.or_(
            Host.reserved.is_(True), Host.claimed_by.is_not(None),
            Host.on_maintenance.is_(True))))


def held_by(context, notification_uuid):
    """Names of the hosts the recovery holds."""
    with engine.reader.using(context) as session:
        return _names(session, Host.claimed_by == notification_uuid)


def hold(context, segment_uuid, notification_uuid, choose):
    """Hold reserved hosts of ``segment_uuid`` for the recovery
    ``notification_uuid``; return the names it holds, in the order taken.

    ``choose(held, free)`` gets the names this recovery already holds and
    those free in the segment (reserved, not on maintenance, held by
    nobody), and returns the free ones to hold too: it must not call
    anything slow, since the segment is locked meanwhile. Holding again
    keeps what is held: a recovery run again after a take-over holds
    what it held, plus what it still needs.
    """
    for _attempt in range(ATTEMPTS):
        try:
            return _hold(context, segment_uuid, notification_uuid,
                         choose)
        except HoldLost:
            continue
    raise HoldLost('reserved hosts of segment %s kept going to other '
                    'recoveries' % segment_uuid)


@engine.retry_on_deadlock
def _hold(context, segment_uuid, notification_uuid, choose):
    with engine.writer.using(context) as session:
        transitions.lock(session, Segment, [Segment.uuid == segment_uuid])
        segment_id = session.execute(sa.select(Segment.id).where(
            Segment.uuid == segment_uuid)).scalar()
        if segment_id is None:
            return []
        held = _names(session, Host.claimed_by == notification_uuid)
        free = _names(session, Host.failover_segment_id == segment_id,
                      Host.reserved.is_(True), Host.claimed_by.is_(None),
                      Host.on_maintenance.is_(False))
        chosen = [name for name in choose(held, free) if name in free]
        now = models.utcnow()
        for name in chosen:
            moved = session.execute(sa.update(Host).where(
                Host.name == name, Host.failover_segment_id == segment_id,
                Host.reserved.is_(True), Host.claimed_by.is_(None)).values(
                    reserved=False, claimed_by=notification_uuid,
                    claimed_at=now)).rowcount
            if moved != 1:
                raise HoldLost(name)
        return held + chosen


@engine.retry_on_deadlock
def note_joined(context, notification_uuid, name, aggregate_id):
    """Record that the recovery is putting its host ``name`` in the
    aggregate ``aggregate_id`` (before it asks Nova: a record of a join
    that did not happen costs a refused leave, a join not recorded would
    stay). False if the recovery no longer holds the host."""
    with engine.writer.using(context) as session:
        joined = session.execute(sa.select(Host.joined_aggregates).where(
            Host.name == name, Host.claimed_by == notification_uuid
        ).with_for_update()).first()
        if joined is None:
            return False
        ids = list(joined[0] or ())
        if aggregate_id not in ids:
            session.execute(sa.update(Host).where(
                Host.name == name,
                Host.claimed_by == notification_uuid).values(
                    joined_aggregates=ids + [aggregate_id]))
        return True


def joined(context, notification_uuid):
    """{host name: ids of the aggregates the recovery put it in}, for the
    hosts it holds."""
    with engine.reader.using(context) as session:
        return {name: list(ids or ()) for name, ids in session.execute(
            sa.select(Host.name, Host.joined_aggregates).where(
                Host.claimed_by == notification_uuid))}


@engine.retry_on_deadlock
def release(context, notification_uuid, names):
    """Give the hosts ``names`` held by the recovery back to the pool:
    reserved again, held by nobody."""
    if not names:
        return 0
    with engine.writer.using(context) as session:
        return session.execute(sa.update(Host).where(
            Host.claimed_by == notification_uuid,
            Host.name.in_(sorted(names))).values(
                reserved=True, claimed_by=None, claimed_at=None,
                joined_aggregates=None)).rowcount


@engine.retry_on_deadlock
def settle(context, notification_uuid):
    """The recovery is over: the hosts it still holds keep their servers
    as normal hosts, held by nobody."""
    with engine.writer.using(context) as session:
        return session.execute(sa.update(Host).where(
            Host.claimed_by == notification_uuid).values(
                claimed_by=None, claimed_at=None,
                joined_aggregates=None)).rowcount
