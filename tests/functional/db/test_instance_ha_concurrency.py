"""Instance HA's rules hold against concurrent writers, on every
supported database: one report however many times a monitor's retries
deliver it at once, no segment changed while a report joins it, and no
reserved host claimed by two recoveries."""

import datetime

from tests.helpers.racing import RACERS
from tests.helpers.racing import race
from watcher_ha.common import context
from watcher_ha.common.instance_ha import exception
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import query
from watcher_ha.db import reserved_hosts

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


def _segment_with_reserved(name, failed, reserved):
    ctx = context.admin_context()
    segment = failover_segments.create_segment(ctx, {
        'name': name, 'service_type': 'COMPUTE',
        'recovery_method': 'reserved_host'})
    for host in failed:
        failover_segments.create_host(ctx, segment['uuid'], {
            'name': host, 'type': 'COMPUTE', 'control_attributes': ''})
    for host in reserved:
        failover_segments.create_host(ctx, segment['uuid'], {
            'name': host, 'type': 'COMPUTE', 'control_attributes': '',
            'reserved': True})
    return segment


def _first_free(held, free):
    return [] if held else free[:1]


def test_a_reserved_host_serves_one_recovery(migrated_engine):
    """Four hosts of a segment fail at once and four recoveries, each
    needing one host, claim from four reserved hosts: each gets its own,
    round after round; claiming again returns what is held."""
    ctx = context.admin_context()
    for round_ in range(30):
        failed = ['failed-%d-%d' % (round_, i) for i in range(4)]
        reserved = ['spare-%d-%d' % (round_, i) for i in range(4)]
        segment = _segment_with_reserved('claims-%d' % round_, failed,
                                         reserved)
        recoveries = iter(['recovery-%d-%d' % (round_, i)
                           for i in range(4)])

        def one_recovery():
            recovery = next(recoveries)
            return recovery, reserved_hosts.hold(
                ctx, segment['uuid'], recovery, _first_free)

        outcomes = race(one_recovery, racers=4)
        assert not [o for o in outcomes if isinstance(o, Exception)], \
            outcomes
        taken = [hosts for _recovery, hosts in outcomes]
        assert all(len(hosts) == 1 for hosts in taken), taken
        assert sorted(h for hosts in taken for h in hosts) == reserved
        recovery, hosts = outcomes[0]
        assert reserved_hosts.hold(ctx, segment['uuid'], recovery,
                                    _first_free) == hosts
        # A fifth failure finds the pool empty.
        assert reserved_hosts.hold(ctx, segment['uuid'], 'late',
                                    _first_free) == []


def test_unused_claims_go_back_to_the_pool(migrated_engine):
    ctx = context.admin_context()
    segment = _segment_with_reserved('pool', ['failed'], ['r1', 'r2'])
    assert reserved_hosts.hold(ctx, segment['uuid'], 'recovery',
                                lambda held, free: free) == ['r1', 'r2']
    hosts = {h['name']: h for h in failover_segments.list_hosts(
        ctx, segment['uuid'], query.Paging(), {})}
    assert not hosts['r1']['reserved'] and not hosts['r2']['reserved']
    assert reserved_hosts.release(ctx, 'recovery', ['r2']) == 1
    assert reserved_hosts.settle(ctx, 'recovery') == 1
    hosts = {h['name']: h for h in failover_segments.list_hosts(
        ctx, segment['uuid'], query.Paging(), {})}
    assert (hosts['r1']['reserved'], hosts['r1']['claimed_by']) == (
        False, None)
    assert (hosts['r2']['reserved'], hosts['r2']['claimed_by']) == (
        True, None)
    # r2 serves the next failure.
    assert reserved_hosts.hold(ctx, segment['uuid'], 'next',
                                _first_free) == ['r2']


def test_an_operator_returns_a_host_a_failed_recovery_kept(migrated_engine):
    ctx = context.admin_context()
    segment = _segment_with_reserved('kept', ['failed'], ['r1'])
    assert reserved_hosts.hold(ctx, segment['uuid'], 'failed-recovery',
                                _first_free) == ['r1']
    [host] = [h for h in failover_segments.list_hosts(
        ctx, segment['uuid'], query.Paging(), {}) if h['name'] == 'r1']
    failover_segments.update_host(ctx, segment['uuid'], host['uuid'],
                                  {'reserved': True})
    assert reserved_hosts.hold(ctx, segment['uuid'], 'next',
                                _first_free) == ['r1']
