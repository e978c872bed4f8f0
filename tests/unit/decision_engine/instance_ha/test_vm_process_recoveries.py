"""Which VM and PROCESS notifications a decision engine recovers, as
Masakari does, why not the others, and the plans of those it does."""

import pytest
from novaclient import exceptions as nova_exc
from oslo_config import cfg

from watcher_ha.cloud import clients
from watcher_ha.common.instance_ha import failures
from watcher_ha.decision_engine.goal import cluster_maintaining
from watcher_ha.decision_engine.instance_ha import recoveries
from watcher_ha.decision_engine.planner import weight
from watcher_ha.decision_engine.strategy import instance_recovery
from watcher_ha.decision_engine.strategy import process_recovery

CONF = cfg.CONF

SEGMENT = {'name': 'rack-1', 'enabled': True,
           'recovery_method': 'rh_priority'}
SERVER = '0b8e0a6e-7f4a-4c43-9d0e-3c3c8b1f6a01'


def vm(event, detail):
    return {'type': 'VM', 'uuid': 'n-1', 'payload': {
        'event': event, 'vir_domain_event': detail,
        'instance_uuid': SERVER}}


def process(event, name='nova-compute'):
    return {'type': 'PROCESS', 'uuid': 'n-1', 'payload': {
        'event': event, 'process_name': name}}


@pytest.mark.parametrize('event, detail', [
    ('LIFECYCLE', 'STOPPED_FAILED'),
    ('QEMU_GUEST_AGENT_ERROR', 'STOPPED_FAILED'),
    ('IO_ERROR', 'IO_ERROR_REPORT'),
])
def test_a_failed_guest_is_restarted(event, detail):
    assert recoveries._not_recovered(vm(event, detail), SEGMENT) is None


@pytest.mark.parametrize('event, detail', [
    # Shut down from inside, or stopped through Nova: no failure.
    ('LIFECYCLE', 'STOPPED_SHUTDOWN'),
    ('LIFECYCLE', 'STOPPED_DESTROYED'),
    ('LIFECYCLE', 'SHUTDOWN_FINISHED'),
    ('LIFECYCLE', 'SUSPENDED_IOERROR'),
    ('REBOOT', 'UNKNOWN'),
    ('WATCHDOG', 'WATCHDOG_RESET'),
    ('IO_ERROR', 'IO_ERROR_PAUSE'),
    ('IO_ERROR_REASON', 'UNKNOWN'),
    ('CONTROL_ERROR', 'UNKNOWN'),
    # The pairs, exactly as the monitors spell them.
    ('QEMU_GUEST_AGENT_ERROR', 'IO_ERROR_REPORT'),
    ('lifecycle', 'STOPPED_FAILED'),
])
def test_other_libvirt_events_are_ignored_saying_which(event, detail):
    reason = recoveries._not_recovered(vm(event, detail), SEGMENT)
    assert '%s %s, which is no failure' % (event, detail) in reason
    assert 'LIFECYCLE STOPPED_FAILED' in reason


@pytest.mark.parametrize('row', [
    process('STOPPED'),
    # Masakari puts the host on maintenance for any process that stops.
    process('STOPPED', 'libvirtd'),
])
def test_a_stopped_process_is_recovered(row):
    assert recoveries._not_recovered(row, SEGMENT) is None


def test_a_process_started_again_needs_nothing():
    assert 'nova-compute reports it is STARTED: nothing to recover' == (
        recoveries._not_recovered(process('STARTED'), SEGMENT))


@pytest.mark.parametrize('row', [vm('LIFECYCLE', 'STOPPED_FAILED'),
                                 process('STOPPED')])
def test_nothing_is_recovered_in_a_disabled_or_deleted_segment(row):
    assert 'segment rack-1 is disabled' in recoveries._not_recovered(
        row, dict(SEGMENT, enabled=False))
    assert 'no longer exists' in recoveries._not_recovered(row, None)


@pytest.mark.parametrize('metadata, state, everyone, reason', [
    ({'HA_Enabled': 'True'}, 'active', False, None),
    ({'HA_Enabled': 'yes'}, 'stopped', False, None),
    ({'HA_Enabled': 'true'}, 'error', False, None),
    ({'HA_Enabled': 'True'}, 'resized', False, None),
    ({}, 'active', True, None),
    ({}, 'active', False, 'does not have the metadata HA_Enabled=True'),
    ({'HA_Enabled': 'False'}, 'active', False, 'process_all_instances is '
                                               'false'),
    ({'HA_Enabled': 'True'}, 'paused', False, 'is paused: it is left'),
    ({}, 'rescued', True, 'is rescued: it is left'),
])
def test_which_servers_are_restarted(metadata, state, everyone, reason):
    found = failures.server_not_recovered(SERVER, metadata, state,
                                          everyone)
    if reason is None:
        assert found is None
    else:
        assert reason in found and SERVER in found


def test_a_server_or_process_gets_one_attempt_per_round():
    for kind in ('VM', 'PROCESS'):
        assert recoveries._round(SEGMENT, kind) == (None,)
    assert len(recoveries._round(SEGMENT, 'COMPUTE_HOST')) == 2


class FakeServers:

    def __init__(self, found):
        self.found = found

    def get(self, uuid):
        if isinstance(self.found, Exception):
            raise self.found
        return self.found


class FakeServer:

    def __init__(self, vm_state, metadata):
        self.metadata = metadata
        setattr(self, 'OS-EXT-STS:vm_state', vm_state)


@pytest.fixture
def nova_says(conf, monkeypatch):
    """Make the engine's Nova answer a server (or raise)."""

    def says(found):
        client = type('Nova', (), {'servers': FakeServers(found)})()
        monkeypatch.setattr(clients, 'configured', lambda conf: None)
        monkeypatch.setattr(clients, 'nova', lambda conf: client)
    return says


@pytest.mark.parametrize('found, reason', [
    (FakeServer('active', {'HA_Enabled': 'True'}), None),
    (FakeServer('active', {}), 'does not have the metadata HA_Enabled'),
    (FakeServer('paused', {'HA_Enabled': 'True'}), 'is paused'),
    (nova_exc.NotFound(404), 'does not exist: nothing to restart'),
    # Nova cannot tell: the action checks when it runs.
    (nova_exc.ClientException(503), None),
])
def test_the_engine_asks_nova_about_the_server(nova_says, found, reason):
    nova_says(found)
    got = recoveries._server_not_recovered(vm('LIFECYCLE',
                                              'STOPPED_FAILED'))
    assert got is None if reason is None else reason in got


def test_process_all_instances_restarts_servers_without_ha_enabled(
        nova_says, config):
    nova_says(FakeServer('active', {}))
    config.config(process_all_instances=True, group='instance_ha')
    assert recoveries._server_not_recovered(
        vm('LIFECYCLE', 'STOPPED_FAILED')) is None
    strategy, parameters, _ = recoveries._attempt(
        None, vm('LIFECYCLE', 'STOPPED_FAILED'), SEGMENT)
    assert (strategy, parameters) == ('instance_recovery', {
        'notification_uuid': 'n-1', 'instance_uuid': SERVER,
        'process_all_instances': True})


def actions(strategy, parameters):
    solution = strategy(cluster_maintaining.ClusterMaintaining).execute(
        {}, parameters)
    return [(a.action_type, a.input_parameters) for a in solution.actions]


def test_a_server_is_restarted_by_one_action():
    assert actions(instance_recovery.InstanceRecovery, {
        'notification_uuid': 'n-1', 'instance_uuid': SERVER,
        'process_all_instances': False}) == [
        ('restart_server', {'resource_id': SERVER,
                            'notification_uuid': 'n-1',
                            'process_all_instances': False})]


PROCESS_PARAMETERS = {'notification_uuid': 'n-1', 'segment_uuid': 's-1',
                      'host': 'compute-1', 'process_name': 'nova-compute'}


def test_nova_compute_stopped_puts_the_host_on_maintenance_then_disables_it():
    found = actions(process_recovery.ProcessRecovery, PROCESS_PARAMETERS)
    assert found == [
        ('set_host_maintenance', {'notification_uuid': 'n-1',
                                  'segment_uuid': 's-1',
                                  'source_node': 'compute-1'}),
        ('change_nova_service_state', {
            'resource_name': 'compute-1', 'state': 'disabled',
            'disabled_reason': process_recovery.DISABLED_REASON})]
    solution = process_recovery.ProcessRecovery(
        cluster_maintaining.ClusterMaintaining).execute(
            {}, PROCESS_PARAMETERS)
    first, then = weight.WeightPlanner(
        weight.DEFAULT_WEIGHTS,
        weight.DEFAULT_PARALLELIZATION).schedule(solution)
    assert (first.action_type, then.action_type, then.parents) == (
        'set_host_maintenance', 'change_nova_service_state', [first.uuid])


def test_another_process_stopped_only_puts_the_host_on_maintenance():
    assert [a for a, _ in actions(
        process_recovery.ProcessRecovery,
        dict(PROCESS_PARAMETERS, process_name='libvirtd'))] == [
        'set_host_maintenance']


@pytest.mark.parametrize('kind, maintenance', [('VM', False),
                                               ('PROCESS', True)])
def test_giving_up_leaves_the_host_as_its_recovery_would(
        conf, monkeypatch, kind, maintenance):
    """A server that could not be restarted leaves its host as it was;
    a process's host stays on maintenance; neither gives reserved hosts
    back (they hold none)."""
    done = []
    db = recoveries.recoveries
    monkeypatch.setattr(db, 'owns', lambda *args: True)
    monkeypatch.setattr(db, 'host_name', lambda context, uuid: 'compute-1')
    monkeypatch.setattr(db, 'end_attempt',
                        lambda context, uuid, host, target, message,
                        then=None: done.append((target, message)))
    monkeypatch.setattr(recoveries.failover_segments, 'set_maintenance',
                        lambda *args: done.append(('maintenance', args[2])))
    monkeypatch.setattr(recoveries.reserved_pool, 'give_back', pytest.fail)
    engine = recoveries.Recoveries('engine-1', None, None)
    engine._give_up(None, {'uuid': 'n-1', 'type': kind, 'attempts': 3,
                           'message': 'Nova refused', 'source_host_uuid': 'h',
                           'failover_segment_uuid': 's-1'})
    assert done == [('maintenance', 'compute-1')] * maintenance + [
        ('failed', 'gave up after 3 attempt(s); the last: Nova refused')]
