"""The simulator's live migrations as nova-compute runs them: at most
max_concurrent_live_migrations (Nova's default: 1) out of one host at a
time, the others queued in order; an abort stops a running one (the
server stays on its source) and, from compute 2.65, a queued one."""

import pytest

from tests.helpers.simulator_calls import until

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import scenario
from watcher_ha.simulator.nova import cloud as cloud_mod
from watcher_ha.simulator.nova import model


class Recorded:
    def __init__(self):
        self.events = []

    def emit(self, event_type, publisher, **objects):
        server = objects.get('server')
        self.events.append((event_type, server.name if server else None))


def make(limit=1, seconds=0.4):
    """Two sources with two m1.small servers each, one empty host; a live
    migration takes ``seconds``."""
    spec = {'hosts': [{'name': name, 'vcpus': 64, 'memory_mb': 262144,
                       'disk_gb': 4000} for name in ('a', 'b', 'c')],
            'servers': [{'name': 'vm-%s%d' % (host, index),
                         'flavor': 'm1.small', 'host': host}
                        for host in ('a', 'b') for index in (1, 2)],
            'bandwidth_mb_per_s': 2048 / seconds,
            'max_concurrent_live_migrations': limit}
    events = Recorded()
    cloud = scenario.build(spec, cloud_mod.Cloud(
        bandwidth_mb_per_s=spec['bandwidth_mb_per_s'], events=events,
        max_concurrent_live_migrations=limit, clock=clock_mod.FakeClock()))
    by_name = {s.name: s.uuid for s in cloud.servers.values()}
    return cloud, by_name, events


def wait_until(cloud, check, timeout=5):
    """Move the cloud's time on until ``check`` holds."""
    until(check, cloud.clock.advance, timeout, 'timed out')


def status(cloud, migration):
    with cloud.lock:
        return cloud.migrations[migration.id].status


def test_one_host_migrates_one_server_at_a_time_others_in_parallel():
    cloud, vm, _ = make()
    first = cloud.live_migrate(vm['vm-a1'], 'c')
    second = cloud.live_migrate(vm['vm-a2'], 'c')
    other = cloud.live_migrate(vm['vm-b1'], 'c')
    assert [status(cloud, m) for m in (first, second, other)] == [
        'running', 'queued', 'running']
    # Queued, the server is already migrating, as in Nova.
    assert cloud.servers[vm['vm-a2']].task_state == 'migrating'
    wait_until(cloud, lambda: status(cloud, first) == 'completed')
    assert status(cloud, second) == 'running'
    wait_until(cloud, lambda: status(cloud, second) == 'completed')
    assert {cloud.servers[vm[name]].host
            for name in ('vm-a1', 'vm-a2', 'vm-b1')} == {'c'}


def test_no_limit_when_it_is_0():
    cloud, vm, _ = make(limit=0)
    both = [cloud.live_migrate(vm[name], 'c') for name in ('vm-a1', 'vm-a2')]
    assert [status(cloud, m) for m in both] == ['running', 'running']


def test_an_abort_leaves_the_server_on_its_source_and_starts_the_next():
    cloud, vm, events = make(seconds=5)
    first = cloud.live_migrate(vm['vm-a1'], 'c')
    second = cloud.live_migrate(vm['vm-a2'], 'c')
    cloud.abort_live_migration(vm['vm-a1'], first.id)
    assert status(cloud, first) == 'cancelled'
    server = cloud.servers[vm['vm-a1']]
    assert (server.host, server.task_state) == ('a', None)
    assert status(cloud, second) == 'running'
    assert [e for e in events.events if e[1] == 'vm-a1'
            and ('abort' in e[0] or 'rollback.' in e[0])] == [
        ('instance.live_migration_abort.start', 'vm-a1'),
        ('instance.live_migration_abort.end', 'vm-a1'),
        ('instance.live_migration_rollback.start', 'vm-a1'),
        ('instance.live_migration_rollback.end', 'vm-a1')]
    # Over: Nova refuses to abort it again.
    with pytest.raises(model.Refused) as refused:
        cloud.abort_live_migration(vm['vm-a1'], first.id)
    assert refused.value.status == 400


def test_a_queued_migration_is_aborted_only_from_2_65():
    cloud, vm, events = make(seconds=5)
    cloud.live_migrate(vm['vm-a1'], 'c')
    queued = cloud.live_migrate(vm['vm-a2'], 'c')
    with pytest.raises(model.Refused) as refused:
        cloud.abort_live_migration(vm['vm-a2'], queued.id, queued_too=False)
    assert refused.value.status == 400
    cloud.abort_live_migration(vm['vm-a2'], queued.id)
    assert status(cloud, queued) == 'cancelled'
    server = cloud.servers[vm['vm-a2']]
    assert (server.host, server.task_state) == ('a', None)
    # It never began: nothing to roll back, no pre-migration announced.
    assert [e for e, name in events.events if name == 'vm-a2'
            and e.startswith('instance.live_migration')] == [
        'instance.live_migration_abort.start',
        'instance.live_migration_abort.end']


def test_an_unknown_migration_is_404():
    cloud, vm, _ = make()
    with pytest.raises(model.Refused) as refused:
        cloud.abort_live_migration(vm['vm-a1'], 999)
    assert refused.value.status == 404
