"""Instance HA's rules hold against concurrent API workers, on every
supported database: one report however many times a monitor's retries
deliver it at once, and no segment changed while a report joins it."""

import datetime

from tests.functional.db.test_concurrency import RACERS
from tests.functional.db.test_concurrency import race
from watcher_ha.common import context
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.instance_ha import exception

GENERATED = datetime.datetime(2026, 11, 24, 10, 0, 0)
DOWN = {'event': 'STOPPED', 'host_status': 'NORMAL',
        'cluster_status': 'OFFLINE'}


def _segment_with_host(name='seg', host='compute-1'):
    ctx = context.admin_context()
    segment = failover_segments.create_segment(ctx, {
        'name': name, 'service_type': 'COMPUTE',
        'recovery_method': 'reserved_host'})
    failover_segments.create_host(ctx, segment['uuid'], {
        'name': host, 'type': 'COMPUTE', 'control_attributes': ''})
    return segment


def _report(host='compute-1', seconds=0):
    return host_notifications.create_notification(
        context.admin_context(),
        {'type': 'COMPUTE_HOST', 'hostname': host, 'payload': DOWN,
         'generated_time': GENERATED + datetime.timedelta(seconds=seconds)},
        duplicate_window=180)


def test_one_report_however_many_deliveries(migrated_engine):
    _segment_with_host()
    outcomes = race(_report)
    accepted = [o for o in outcomes if isinstance(o, dict)]
    duplicates = [o for o in outcomes
                  if isinstance(o, exception.DuplicateNotification)]
    assert len(accepted) == 1, outcomes
    assert len(duplicates) == RACERS - 1, outcomes


def test_a_segment_is_not_changed_under_an_arriving_report(migrated_engine):
    """Half the racers report a failure, half edit the segment: whatever
    the order, an edit that went through came before every report."""
    for round_ in range(3):
        segment = _segment_with_host('seg%d' % round_, 'host%d' % round_)
        order = []

        def report_or_edit(index=iter(range(RACERS))):
            mine = next(index)
            if mine % 2:
                row = _report('host%d' % round_, seconds=mine * 1000)
                order.append(('report', row['created_at']))
                return row
            row = failover_segments.update_segment(
                context.admin_context(), segment['uuid'],
                {'description': 'edit %d' % mine})
            order.append(('edit', row['updated_at']))
            return row

        outcomes = race(report_or_edit)
        errors = [o for o in outcomes if isinstance(o, Exception)]
        assert all(isinstance(e, exception.SegmentInUse) for e in errors), \
            errors
        first_report = min(t for kind, t in order if kind == 'report')
        assert all(t <= first_report for kind, t in order if kind == 'edit')
        assert len([o for o in order if o[0] == 'report']) == RACERS // 2
