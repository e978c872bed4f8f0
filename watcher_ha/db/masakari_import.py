"""import-masakari: failover segments and their hosts, with the history of
finished notifications (and their server moves), copied from a Masakari
22 database with their UUIDs.

Everything is written in one transaction, and only once nothing is in
the way: a failure, or a refusal, copies nothing. The rules, told to
operators in doc/source/migrating_from_masakari.rst:

* segments and hosts are matched by UUID and by name. One here with the
  same UUID and the same content is left alone (a second run copies only
  what Masakari gained since); one with the same UUID or name but other
  content refuses the whole import, every such row named, until the
  operator has made the two agree or deleted ours;
* notifications Masakari finished with (finished, failed, ignored) are
  copied as history, with their server moves; one whose UUID is here is
  left alone. Those it was still at (new, running, error) are left in
  Masakari and listed: copied, ours would recover the host again;
* rows Masakari soft-deleted are not copied (its API no longer shows
  them), and are listed.
"""

import sqlalchemy as sa

from watcher_ha.common import exception
from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import foreign_db
from watcher_ha.db import masakari22
from watcher_ha.db import models
from watcher_ha.db import vmoves as vmove_rows

# What is copied, in the order it is copied (parents first), as the
# summary names it.
TABLES = ('segments', 'hosts', 'notifications', 'vmoves')
SOURCE_TABLES = ('failover_segments', 'hosts', 'notifications', 'vmoves')
# Statuses of a notification Masakari's engine is done with.
DONE = (statuses.FINISHED, statuses.FAILED, statuses.IGNORED)
# What an operator sees of a segment and a host (Masakari's API fields),
# compared between the two sides; a host's segment by its UUID.
SEGMENT_FIELDS = ('name', 'description', 'service_type', 'recovery_method',
                  'enabled')
HOST_FIELDS = ('name', 'type', 'control_attributes', 'reserved',
               'on_maintenance', 'failover_segment_id')
# The columns of a server move copied as they are.
VMOVE_COLUMNS = ('uuid', 'notification_uuid', 'instance_uuid',
                 'instance_name', 'source_host', 'dest_host', 'start_time',
                 'end_time', 'message', 'created_at', 'updated_at')
BATCH = 500

Segment = models.FailoverSegment
Host = models.SegmentHost
Notification = models.HostNotification
VMove = models.VMove


class Conflicts(exception.WatcherHAError):
    msg_fmt = ('Nothing was copied: %(count)d row(s) of Masakari are here '
               'already with other content:\n%(rows)s\nMake each pair '
               'agree (openstack segment update, openstack segment host '
               'update, on either side), or delete the one here (openstack '
               'segment delete, openstack segment host delete), and run '
               'the import again.')

    def __init__(self, found):
        super().__init__(count=len(found),
                         rows='\n'.join('  ' + line for line in found))


def run(context, url, dry_run=False):
    """Copy what Masakari at ``url`` has and we do not. Returns {table:
    Tally}; with ``dry_run``, what would be copied, nothing written.
    Raises NotMasakari22 or Conflicts, writing nothing."""
    source = masakari22.Source(url)
    try:
        source.check()
        rows = {table: source.rows(table) for table in SOURCE_TABLES}
    finally:
        source.close()
    return foreign_db.write(
        context, TABLES,
        lambda session, tallies: _Copy(session, rows, tallies).all(),
        dry_run)


def _segment_content(row):
    """A segment's fields as compared, from either side."""
    content = {name: row[name] for name in SEGMENT_FIELDS}
    # Masakari's column allows NULL, which its objects never write (they
    # default to enabled): taken as enabled.
    content['enabled'] = content['enabled'] is None or bool(
        content['enabled'])
    return content


def _host_content(row):
    content = {name: row[name] for name in HOST_FIELDS}
    for flag in ('reserved', 'on_maintenance'):
        content[flag] = bool(content[flag])
    return content


def _differences(here, there):
    return ', '.join('%s is %r here, %r in Masakari' % (
        name, here[name], there[name])
        for name in here if here[name] != there[name])


class _Copy:
    """One import, in the caller's transaction."""

    def __init__(self, session, rows, tallies):
        self.session = session
        self.rows = rows
        self.tallies = tallies
        self.conflicts = []

    def all(self):
        segments = self._segments()
        hosts = self._hosts()
        if self.conflicts:
            raise Conflicts(self.conflicts)
        self._insert(Segment, 'segments', segments)
        segment_id = dict(self.session.execute(
            sa.select(Segment.uuid, Segment.id)).all())
        for values in hosts:
            values['failover_segment_id'] = segment_id[
                values.pop('segment_uuid')]
        self._insert(Host, 'hosts', hosts)
        copied = self._notifications()
        self._vmoves(copied)

    def _live(self, table, kind):
        """The rows Masakari has not deleted; those it has are listed."""
        live = []
        for row in self.rows[table]:
            if row['deleted']:
                self.tallies[kind].skipped.append(
                    (row.get('uuid') or row.get('notification_uuid'),
                     'deleted in Masakari'))
            else:
                live.append(row)
        return live

    def _insert(self, model, kind, pending):
        for start in range(0, len(pending), BATCH):
            self.session.execute(sa.insert(model),
                                 pending[start:start + BATCH])
        self.tallies[kind].copied += len(pending)

    def _matched(self, kind, row, by_uuid, by_name, content, described):
        """True if ``row`` is to be copied; counts it if here already,
        records a conflict if here otherwise."""
        mine = by_uuid.get(row['uuid'])
        if mine is not None:
            differences = _differences(content(mine), content(row))
            if not differences:
                self.tallies[kind].present += 1
            else:
                self.conflicts.append('%s %s: %s' % (
                    described, row['uuid'], differences))
            return False
        mine = by_name.get(row['name'])
        if mine is not None:
            self.conflicts.append(
                '%s %s: another %s is named %s here (UUID %s)' % (
                    described, row['uuid'], described, row['name'],
                    mine['uuid']))
            return False
        return True

    def _segments(self):
        """The segments to copy, as our rows' values."""
        here = [models.as_dict(row) for row in self.session.execute(
            sa.select(Segment)).scalars()]
        by_uuid = {row['uuid']: row for row in here}
        by_name = {row['name']: row for row in here}
        pending = []
        for row in self._live('failover_segments', 'segments'):
            if self._matched('segments', row, by_uuid, by_name,
                             _segment_content, 'segment'):
                pending.append(dict(
                    _segment_content(row), uuid=row['uuid'],
                    created_at=row['created_at'],
                    updated_at=row['updated_at']))
        return pending

    def _hosts(self):
        """The hosts to copy, as our rows' values with ``segment_uuid``
        for their segment's id, yet to be known."""
        here = []
        for host, segment_uuid in self.session.execute(sa.select(
                Host, Segment.uuid).join(
                Segment, Host.failover_segment_id == Segment.id)):
            here.append(dict(models.as_dict(host),
                             failover_segment_id=segment_uuid))
        by_uuid = {row['uuid']: row for row in here}
        by_name = {row['name']: row for row in here}
        # Masakari deletes a segment's hosts with it: every live host's
        # segment is live.
        pending = []
        for row in self._live('hosts', 'hosts'):
            if self._matched('hosts', row, by_uuid, by_name, _host_content,
                             'host'):
                values = _host_content(row)
                pending.append(dict(
                    values, uuid=row['uuid'],
                    segment_uuid=values.pop('failover_segment_id'),
                    created_at=row['created_at'],
                    updated_at=row['updated_at']))
        return pending

    def _notifications(self):
        """Copy the finished notifications; return the UUIDs of those
        that are here now."""
        existing = set(self.session.execute(
            sa.select(Notification.uuid)).scalars())
        # A notification recorded before Masakari kept its segment's UUID
        # is given its host's, deleted or not.
        segment_of_host = {h['uuid']: h['failover_segment_id']
                           for h in self.rows['hosts']}
        here, pending = set(), []
        tally = self.tallies['notifications']
        for row in self._live('notifications', 'notifications'):
            uuid = row['notification_uuid']
            if uuid in existing:
                tally.present += 1
                here.add(uuid)
                continue
            if row['status'] not in DONE:
                tally.skipped.append((uuid, 'still %s in Masakari: left to '
                                      'it' % row['status']))
                continue
            segment_uuid = (row['failover_segment_uuid']
                            or segment_of_host.get(row['source_host_uuid']))
            if segment_uuid is None:
                tally.skipped.append((uuid, 'Masakari knows neither its '
                                      'segment nor its host'))
                continue
            here.add(uuid)
            pending.append(dict(
                uuid=uuid, generated_time=row['generated_time'],
                type=row['type'], payload=row['payload'] or {},
                source_host_uuid=row['source_host_uuid'],
                failover_segment_uuid=segment_uuid, state=row['status'],
                message=row['message'], created_at=row['created_at'],
                updated_at=row['updated_at']))
        self._insert(Notification, 'notifications', pending)
        return here

    def _vmoves(self, notifications):
        existing = set(self.session.execute(
            sa.select(VMove.uuid)).scalars())
        pending = []
        tally = self.tallies['vmoves']
        for row in self._live('vmoves', 'vmoves'):
            if row['uuid'] in existing:
                tally.present += 1
            elif row['notification_uuid'] not in notifications:
                tally.skipped.append((row['uuid'], 'its notification %s '
                                      'was not copied'
                                      % row['notification_uuid']))
            else:
                pending.append(dict(
                    {name: row[name] for name in VMOVE_COLUMNS},
                    # Masakari's engine always sets both.
                    type=row['type'] or 'evacuation',
                    status=row['status'] or vmove_rows.PENDING))
        self._insert(VMove, 'vmoves', pending)
