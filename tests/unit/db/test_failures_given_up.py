"""The failures instance HA gave up on, as application failover reads
them: a VM notification failed after its restarts, a PROCESS
notification ended (its monitor restarted the process before it
reported); not a VM restarted, a host's failure, a report still being
recovered, nor one older than asked."""

import datetime

import sqlalchemy as sa

from watcher_ha.common import context as watcher_context
from watcher_ha.common.instance_ha import statuses
from watcher_ha.db import engine
from watcher_ha.db import failover_segments
from watcher_ha.db import host_notifications
from watcher_ha.db import models
from watcher_ha.db import recoveries

SERVER = '00000000-0000-4000-8000-0000000000a1'


def report(context, kind, payload, status, ended_at):
    """A notification of ``kind`` from host h-1, ``status`` since
    ``ended_at``: its uuid."""
    uuid = host_notifications.create_notification(context, {
        'type': kind, 'hostname': 'h-1',
        'generated_time': models.utcnow(), 'payload': payload}, 0)['uuid']
    with engine.writer.using(context) as session:
        session.execute(sa.update(models.HostNotification).where(
            models.HostNotification.uuid == uuid).values(
            state=status, updated_at=ended_at))
    return uuid


def test_only_failures_given_up_after_since_are_read(db):
    context = watcher_context.admin_context()
    segment = failover_segments.create_segment(context, {
        'name': 'rack', 'service_type': 'COMPUTE',
        'recovery_method': 'auto'})
    failover_segments.create_host(context, segment['uuid'], {
        'name': 'h-1', 'type': 'COMPUTE', 'control_attributes': ''})
    t0 = datetime.datetime(2026, 11, 28, 12)
    vm = {'event': 'LIFECYCLE', 'vir_domain_event': 'STOPPED_FAILED',
          'instance_uuid': SERVER}
    process = {'event': 'STOPPED', 'process_name': 'nova-compute'}
    gave_up = report(context, statuses.VM, vm, statuses.FAILED,
                     t0 + datetime.timedelta(seconds=10))
    stopped = report(context, statuses.PROCESS, process, statuses.FINISHED,
                     t0 + datetime.timedelta(seconds=20))
    report(context, statuses.VM, vm, statuses.FINISHED,
           t0 + datetime.timedelta(seconds=30))
    report(context, statuses.VM, vm, statuses.ERROR,
           t0 + datetime.timedelta(seconds=30))
    report(context, statuses.COMPUTE_HOST, {'event': 'STOPPED'},
           statuses.FAILED, t0 + datetime.timedelta(seconds=30))
    found = {r.notification: r for r in recoveries.failures_given_up(
        context)}
    assert set(found) == {gave_up, stopped}
    assert (found[gave_up].server, found[gave_up].host,
            found[gave_up].process) == (SERVER, None, None)
    assert (found[stopped].server, found[stopped].host,
            found[stopped].process) == (None, 'h-1', 'nova-compute')
    assert found[stopped].ended_at == t0 + datetime.timedelta(seconds=20)
    later = recoveries.failures_given_up(
        context, since=t0 + datetime.timedelta(seconds=15))
    assert [r.notification for r in later] == [stopped]
