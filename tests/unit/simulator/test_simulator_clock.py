"""The simulator's timers on a fake clock: each kind of timer (a live or
cold migration, a shelve's upload, an evacuation's steps, a host's boot
and its BMC's power action, a silent service going down, a token's
expiry, the wait for a nova-compute that never answers, an injected API
delay, a delayed notification, a Cinder volume's creation, the
scenario's timeline) fires when the test moves the time past it, and
not a moment before."""

import datetime

import pytest
import webob

from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import notifications
from watcher_ha.simulator import simulator
from watcher_ha.simulator.nova import evacuation
from watcher_ha.simulator.nova import hosts

START = datetime.datetime(2026, 1, 1)
SPEC = {
    'hosts': [{'name': 'compute-%d' % i, 'vcpus': 8, 'memory_mb': 32768,
               'disk_gb': 500} for i in range(3)],
    'flavors': [{'id': '1', 'name': 'small', 'vcpus': 1, 'ram': 1024,
                 'disk': 10}],
    'servers': [{'name': 'vm-a', 'flavor': 'small', 'host': 'compute-0'},
                {'name': 'vm-b', 'flavor': 'small', 'host': 'compute-1'}],
    # A migration of vm-a (1024 MB) takes 10 s.
    'bandwidth_mb_per_s': 102.4,
    'evacuate_seconds': 20, 'power_seconds': 5, 'boot_seconds': 120,
    'shelve_seconds': 3, 'service_down_time': 60,
    'rpc_response_timeout': 60, 'token_expiration': 600,
    'storage': {'volume_create_seconds': 4,
                'backends': [{'host': 'stor1', 'backend': 'lvm'}]},
}


@pytest.fixture
def clock():
    return clock_mod.FakeClock(START)


@pytest.fixture
def sim(clock):
    found = simulator.Simulator(SPEC, clock=clock)
    yield found
    found.stop()


def uuid_of(sim, name):
    return next(s.uuid for s in sim.cloud.servers.values()
                if s.name == name)


def call(sim, method, path, body=None, headers=None):
    req = webob.Request.blank(path, method=method, headers=dict(
        {'X-Auth-Token': 'any'}, **(headers or {})))
    if body is not None:
        req.json = body
    return req.get_response(sim)


# The clock itself.

def test_a_fake_clock_runs_its_timers_in_the_order_they_fall_due(clock):
    ran = []
    clock.later(5, ran.append, 'five')
    clock.later(1, ran.append, 'one')
    cancelled = clock.later(2, ran.append, 'two')
    # A timer a timer sets runs too, when due by the end.
    clock.later(3, lambda: clock.later(1, ran.append, 'three+one'))
    cancelled.cancel()
    clock.advance(0.5)
    assert ran == [] and clock.now() == START + datetime.timedelta(
        seconds=0.5)
    clock.advance(4.5)
    assert ran == ['one', 'three+one', 'five']
    assert clock.pending == 0
    assert clock.time() == START.replace(
        tzinfo=datetime.timezone.utc).timestamp() + 5


def test_a_fake_clocks_wait_moves_the_time_on(clock):
    ran = []
    clock.later(10, ran.append, 'due')
    clock.sleep(10)
    assert ran == ['due']
    assert clock.now() == START + datetime.timedelta(seconds=10)


def test_the_real_clock_is_the_default():
    sim = simulator.Simulator(SPEC)
    try:
        assert sim.clock is clock_mod.REAL
        assert sim.cloud.clock is clock_mod.REAL
        assert sim.cloud.hosts['compute-0'].clock is clock_mod.REAL
        assert sim.identity.tokens.clock is clock_mod.REAL
    finally:
        sim.stop()


def test_records_are_stamped_with_the_simulators_time(sim):
    host = sim.cloud.hosts['compute-0']
    server = sim.cloud.servers[uuid_of(sim, 'vm-a')]
    assert host.created_at == server.created_at == START


# Nova's timers.

def test_a_live_migration_ends_when_its_time_has_passed(sim, clock):
    uuid = uuid_of(sim, 'vm-a')
    migration = sim.cloud.live_migrate(uuid, 'compute-2')
    assert migration.started_at == START
    clock.advance(9.9)
    assert (migration.status, sim.cloud.servers[uuid].host) == (
        'running', 'compute-0')
    clock.advance(0.1)
    assert (migration.status, sim.cloud.servers[uuid].host) == (
        'completed', 'compute-2')
    assert migration.updated_at == START + datetime.timedelta(seconds=10)


def test_a_cold_migration_waits_for_confirmation_after_its_time(sim, clock):
    uuid = uuid_of(sim, 'vm-a')
    migration = sim.cloud.cold_migrate(uuid, host='compute-2')
    clock.advance(9)
    assert sim.cloud.servers[uuid].status == 'RESIZE'
    clock.advance(1)
    assert sim.cloud.servers[uuid].status == 'VERIFY_RESIZE'
    assert migration.status == 'finished'


def test_a_shelve_offloads_once_its_snapshot_is_uploaded(sim, clock):
    uuid = uuid_of(sim, 'vm-a')
    sim.cloud.shelve(uuid)
    clock.advance(2.9)
    assert sim.cloud.servers[uuid].task_state == 'shelving_image_uploading'
    clock.advance(0.1)
    assert sim.cloud.servers[uuid].status == 'SHELVED_OFFLOADED'


def test_an_evacuation_claims_then_rebuilds_on_time(sim, clock):
    uuid = uuid_of(sim, 'vm-a')
    hosts.lose_power(sim.cloud, 'compute-0')
    sim.cloud.update_service('compute-0', forced_down=True)
    migration = evacuation.evacuate(sim.cloud, uuid, host='compute-2')
    assert migration.status == 'accepted'
    # The claim comes after CLAIM_SHARE of evacuate_seconds (2 s).
    clock.advance(1.9)
    assert migration.status == 'accepted'
    clock.advance(0.1)
    assert migration.status == 'pre-migrating'
    clock.advance(17.9)
    assert sim.cloud.servers[uuid].host == 'compute-0'
    clock.advance(0.1)
    assert (migration.status, sim.cloud.servers[uuid].host) == (
        'done', 'compute-2')
    assert sim.cloud.servers[uuid].launched_at == START + \
        datetime.timedelta(seconds=20)


def test_a_silent_service_goes_down_after_service_down_time(sim, clock):
    host = sim.cloud.hosts['compute-1']
    clock.advance(5)
    hosts.crash(sim.cloud, 'compute-1')
    assert host.silent_since == START + datetime.timedelta(seconds=5)
    clock.advance(59.9)
    assert (host.state, host.last_seen_up) == ('up', host.silent_since)
    clock.advance(0.1)
    assert host.state == 'down'


def test_a_powered_on_host_reports_after_its_boot(sim, clock):
    node = sim.ironic.node('compute-1')
    hosts.lose_power(sim.cloud, 'compute-1')
    sim.ironic.set_power(node, 'power on')
    # The BMC takes power_seconds, the boot boot_seconds more.
    clock.advance(4.9)
    assert not sim.cloud.hosts['compute-1'].powered_on
    clock.advance(0.1)
    assert sim.cloud.hosts['compute-1'].powered_on
    assert not sim.cloud.hosts['compute-1'].compute_running
    clock.advance(119.9)
    assert not sim.cloud.hosts['compute-1'].reporting
    clock.advance(0.1)
    assert sim.cloud.hosts['compute-1'].reporting


def test_nova_api_waits_out_a_nova_compute_that_never_answers(sim, clock):
    """A disable of a partitioned host still counted up: the request's
    answer waits rpc_response_timeout, on the clock."""
    hosts.partition(sim.cloud, 'compute-1')
    service = sim.cloud.hosts['compute-1'].service_id
    resp = call(sim, 'PUT', '/compute/v2.1/os-services/%s' % service,
                {'status': 'disabled'},
                {'OpenStack-API-Version': 'compute 2.53'})
    assert resp.status_int == 200, resp.text
    assert clock.now() == START + datetime.timedelta(seconds=60)
    assert sim.cloud.rpc_timeouts == [{
        'host': 'compute-1', 'method': 'set_host_enabled',
        'at': START.isoformat()}]


def test_an_injected_api_delay_passes_on_the_clock(sim, clock):
    sim.faults.configure({'api_delay': 7})
    assert call(sim, 'GET', '/compute/v2.1/flavors').status_int == 200
    assert clock.now() == START + datetime.timedelta(seconds=7)


# Keystone's, the notifiers', Cinder's and the timeline's.

def test_a_token_expires_by_the_clock(sim, clock):
    def validate(token_id):
        return call(sim, 'GET', '/identity/v3/auth/tokens', headers={
            'X-Auth-Token': token_id, 'X-Subject-Token': token_id})
    issued = call(sim, 'POST', '/identity/v3/auth/tokens', {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'admin', 'password': 'admin',
            'domain': {'id': 'default'}}}},
        'scope': {'project': {'name': 'admin',
                              'domain': {'id': 'default'}}}}})
    assert issued.status_int == 201, issued.text
    token_id = issued.headers['X-Subject-Token']
    assert issued.json['token']['expires_at'] == \
        '2026-01-01T00:10:00.000000Z'
    clock.advance(599)
    assert validate(token_id).status_int == 200
    clock.advance(1)
    assert validate(token_id).status_int == 401


def test_a_delayed_notification_goes_out_when_its_delay_has_passed(clock):
    sim = simulator.Simulator(SPEC, clock=clock,
                              transport=notifications.nova_transport(
                                  'fake://'))
    try:
        sim.faults.configure({'notification_delay': 3})
        sim.cloud.lock_server(uuid_of(sim, 'vm-a'), True)
        assert sim.notifier.sent == 0
        clock.advance(3)
        assert sim.notifier.sent == 1
    finally:
        sim.stop()


def test_a_volume_is_available_once_created(sim, clock):
    volume = sim.cloud.storage.create_volume(1, name='v')
    assert volume.status == 'creating' and volume.created_at == START
    clock.advance(3.9)
    assert volume.status == 'creating'
    clock.advance(0.1)
    assert volume.status == 'available'
    assert volume.launched_at == START + datetime.timedelta(seconds=4)


def test_the_timeline_happens_on_the_clock(clock):
    sim = simulator.Simulator(dict(SPEC, timeline=[
        {'at': 30, 'fail_host': 'compute-1'}]), clock=clock)
    try:
        sim.start_timeline()
        clock.advance(29)
        assert sim.cloud.hosts['compute-1'].powered_on
        clock.advance(1)
        assert not sim.cloud.hosts['compute-1'].powered_on
    finally:
        sim.stop()
