"""Application failover end to end: the real daemons (separate processes
on RabbitMQ and MariaDB) and the simulated cloud, whose Nova counts a
silent host up for 60 s as Nova does; each application made through Nova
as an operator makes one, declared and watched with the unmodified
``watcher`` CLI (an EVENT audit of goal application_availability,
strategy active_standby). A host's failure is reported to instance HA
(the instance-ha API, as masakari-monitors reports it), which triggers
the audits of the applications on it; an application's own failure is
reported by its webhook, as an application monitor would.

- The active's host powers off and is reported: within 30 s the standby
  has both data volumes and is activated once (one signed delivery id,
  acted on once), the failed member is replaced by an ACTIVE standby in
  the same anti-affinity group, on a host of its own; sampled ten times
  a second, no volume was ever writable by two running guests. An
  ordinary server of the host is evacuated; the member is not.
- The application fails on a live host (its webhook, trigger
  ``failed``): the active is stopped there, its volumes move, the host
  stays up.
- A partition (the host unreachable but running, its BMC unreachable),
  reported: power fencing fails, nothing moves, and the API says why.
- Two of three members' hosts fail (forced down in Nova), with
  max_unhealthy 1: nothing moves, and the audit says why.
- The active's guest fails and its instance monitor reports it (a VM
  notification): instance HA's restart fails, and once its attempts are
  used up, the application's audit is triggered, and fails the active
  over though Nova shows it running.
"""

import time

import pytest
import requests

from tests.functional import app_failover
from tests.functional import services
from tests.functional.app_failover import Sampler
from tests.functional.app_failover import actions_of
from tests.functional.app_failover import application
from tests.functional.app_failover import audit_of
from tests.functional.app_failover import declare
from tests.functional.app_failover import host_event
from tests.functional.app_failover import plans_of
from tests.functional.app_failover import state
from tests.functional.app_failover import trigger
from tests.functional.cloud import nova as nova_client
from tests.functional.cloud import scenario_host
from tests.functional.daemons import cli
from tests.functional.fixtures import wait_for
from tests.helpers import failed_host

HOSTS = ['compute-%d' % i for i in range(11)]
VOLUMES = {app: tuple('0f00000%d-0000-4000-8000-00000000000%d' % (n, i)
                       for i in (1, 2))
           for n, app in enumerate(('failover', 'partition', 'breaker',
                                    'live', 'restarts'))}
SPEC = {
    'power_seconds': 0.2, 'boot_seconds': 1,
    # Nova's: a host reported at once is still up for it.
    'service_down_time': 60, 'rpc_response_timeout': 60,
    'hosts': [scenario_host(name) for name in HOSTS],
    'servers': [],
    'storage': app_failover.storage(
        [volume for ids in VOLUMES.values() for volume in ids]),
    # The guests' activation endpoint (/simulator/activations).
    'activation_secret': app_failover.SECRET}
# Seconds from the trigger to the application whole again.
WITHIN = 30


def sections(sim_url):
    """app_failover.sections(); instance HA restarts a failed guest
    once, and gives up at once."""
    found = app_failover.sections(sim_url)
    found['instance_ha'] = {'recovery_attempts': 1,
                            'recovery_retry_interval': 1}
    return found


@pytest.fixture(scope='module')
def cloud(tmp_path_factory):
    """(cluster, simulator URL, novaclient), every host in one failover
    segment (recovery method auto)."""
    with services.cloud_cluster(tmp_path_factory.mktemp('app'), SPEC,
                                sections) as (cluster, sim_url):
        app_failover.one_segment(cluster, HOSTS)
        yield cluster, sim_url, nova_client(sim_url)


def report(cluster, sim_url, host, what='fail'):
    """``host`` fails (``what``: fail, partition) and is reported to
    instance HA: the notification's uuid."""
    host_event(sim_url, host, what)
    return failed_host.report(cluster, host)


def taken_over(sim_url, standby, volumes):
    """The simulator's state once ``standby`` holds ``volumes`` and is
    marked active, else None."""
    found = state(sim_url)
    return all(found['volumes'][v]['attached_to'] == [standby]
               for v in volumes) and found['servers'][standby][
        'metadata'].get('role') == 'active' and found


def stopped_in_place(cluster, audit):
    """The audit's one plan, once it stopped its failed active in place
    (on a live host) and failed it over without a replacement."""
    [plan] = plans_of(cluster, audit)
    return sorted(a['action_type'] for a in actions_of(
        cluster, plan['uuid'])) == sorted([
        'quiesce_server', 'evict_member', 'move_volume_attachment',
        'move_volume_attachment', 'activate']) and plan


def trigger_again(cluster, audit):
    """Trigger ``audit`` once its plan and its run are done."""
    wait_for(lambda: plans_of(cluster, audit)[0]['state'] == 'SUCCEEDED'
             and audit_of(cluster, audit)['state'] == 'SUCCEEDED', 20,
             'the plan done')
    trigger(cluster, audit)


def audit_shown(cluster, audit):
    """The audit, as the watcher CLI shows it."""
    return cli(cluster.url, '--os-infra-optim-api-version', '1.7', 'audit',
               'show', audit)


def said(cluster, audit, words):
    """The audit once it is SUCCEEDED saying ``words``, else None."""
    found = audit_of(cluster, audit)
    return found if found['state'] == 'SUCCEEDED' and words in (
        found.get('status_message') or '') else None


def test_a_failed_active_s_standby_takes_over_and_it_is_replaced(cloud):
    cluster, sim_url, nova = cloud
    volumes = VOLUMES['failover']
    group, (active, standby) = application(nova, 'failover', HOSTS[0:2],
                                           volumes)
    ordinary = nova.servers.create(
        'ordinary', 'image', nova.flavors.find(name='m1.small'),
        nics='auto', meta={'HA_Enabled': 'True'},
        availability_zone='nova:' + HOSTS[0]).id
    audit = declare(cluster, 'failover', group, activation='webhook',
                    activation_url=sim_url + '/simulator/activations')
    sampler = Sampler(sim_url, volumes)
    sampler.start()
    reported = time.monotonic()
    notification = report(cluster, sim_url, HOSTS[0])

    def whole():
        found = state(sim_url)
        members = nova.server_groups.get(group).members
        replacements = [
            uuid for uuid in members if uuid not in (active, standby)
            and found['servers'].get(uuid, {}).get('vm_state')
            == 'active']
        return (all(found['volumes'][v]['attached_to'] == [standby]
                    for v in volumes)
                and found['servers'][standby]['metadata'].get('role')
                == 'active' and replacements and replacements)
    replacements = wait_for(whole, WITHIN, 'the application whole')
    took = time.monotonic() - reported
    sampler.stop()
    assert took < WITHIN
    [replacement] = replacements
    found = state(sim_url)
    assert active not in found['servers']
    assert found['servers'][replacement]['metadata']['role'] == 'standby'
    assert found['servers'][replacement]['host'] not in (
        HOSTS[0], found['servers'][standby]['host'])
    # Delivered once, signed, and acted on by the guest.
    deliveries = [d for d in found['activations'] if d['server'] == standby]
    assert [(d['signed'], d['status'], d['acted']) for d in deliveries] == [
        (True, 200, True)]
    # Sampled all along (a read takes a while: four a second at least).
    assert sampler.samples >= max(3, int(took * 4)), (sampler.samples, took)
    assert sampler.shared == []
    assert [w for w in found['shared_writes']
            if w['volume'] in volumes] == []
    # The host's other server is evacuated; the member was not.
    assert failed_host.wait_ended(cluster, notification)['status'] == \
        'finished'
    found = state(sim_url)
    assert found['servers'][ordinary]['host'] not in (HOSTS[0], None)
    evacuated = {m['instance_uuid'] for m in requests.get(
        sim_url + '/compute/v2.1/os-migrations?migration_type=evacuation',
        headers={'X-Auth-Token': 'any',
                 'OpenStack-API-Version': 'compute 2.96'},
        timeout=10).json()['migrations']}
    assert ordinary in evacuated and active not in evacuated
    wait_for(lambda: audit_of(cluster, audit)['state'] == 'SUCCEEDED',
             20, 'the audit done')
    wait_for(lambda: plans_of(cluster, audit)[0]['state'] == 'SUCCEEDED',
             20, 'the plan done')
    # Watched with the watcher CLI.
    [plan] = cli(cluster.url, 'actionplan', 'list', '--audit', audit)
    assert plan['State'] == 'SUCCEEDED'
    actions = cli(cluster.url, 'action', 'list', '--action-plan',
                  plan['UUID'], '--detail')
    assert sorted(a['Action'] for a in actions) == sorted([
        'power_off_host', 'force_host_down', 'evict_member',
        'move_volume_attachment', 'move_volume_attachment', 'activate',
        'replace_member'])
    # Triggered again, it finds the application whole.
    trigger(cluster, audit)
    wait_for(lambda: said(cluster, audit, 'every member is healthy'), 20,
             'the second run done')
    assert 'every member is healthy' in audit_shown(
        cluster, audit)['Status Message']


def test_an_application_failed_on_a_live_host_is_stopped_there(cloud):
    cluster, sim_url, nova = cloud
    volumes = VOLUMES['live']
    group, (active, standby) = application(nova, 'live', HOSTS[2:4], volumes)
    audit = declare(cluster, 'live', group, trigger='failed',
                    replacement='none')
    trigger(cluster, audit)
    found = wait_for(lambda: taken_over(sim_url, standby, volumes), WITHIN,
                     'the standby active')
    assert active not in found['servers']
    host = found['hosts'][HOSTS[2]]
    assert (host['powered_on'], host['forced_down'], host['state']) == (
        True, False, 'up')
    assert stopped_in_place(cluster, audit)
    # The same alarm again, once the plan ended: the new active is not
    # failed over for it.
    trigger_again(cluster, audit)
    wait_for(lambda: said(cluster, audit, 'a repeated alarm'), 20,
             'the second run done')


def test_a_partitioned_active_that_cannot_be_fenced_moves_nothing(cloud):
    cluster, sim_url, nova = cloud
    volumes = VOLUMES['partition']
    group, (active, standby) = application(nova, 'partition', HOSTS[4:6],
                                           volumes)
    audit = declare(cluster, 'partition', group)
    requests.put(sim_url + '/simulator/faults', json={
        'bmc_unreachable': [HOSTS[4]]}, timeout=10).raise_for_status()
    report(cluster, sim_url, HOSTS[4], 'partition')

    def plan_ended():
        found = plans_of(cluster, audit)
        return found and found[0]['state'] in ('SUCCEEDED', 'FAILED') \
            and found[0]
    plan = wait_for(plan_ended, 40, 'the plan ended')
    assert plan['state'] == 'FAILED'
    actions = {a['action_type']: a for a in actions_of(cluster,
                                                       plan['uuid'])}
    assert actions['power_off_host']['state'] == 'FAILED'
    assert 'must not be evacuated' in \
        actions['power_off_host']['status_message']
    assert {kind: a['state'] for kind, a in actions.items()
            if kind != 'power_off_host'} == {
        kind: 'CANCELLED' for kind in (
            'force_host_down', 'evict_member', 'move_volume_attachment',
            'activate', 'replace_member')}
    found = state(sim_url)
    assert found['servers'][active]['guest_running']
    for volume in volumes:
        assert found['volumes'][volume]['attached_to'] == [active]
        assert found['volumes'][volume]['writers'] == [active]
    assert found['servers'][standby]['metadata']['role'] == 'standby'


def test_too_many_unhealthy_members_move_nothing(cloud):
    cluster, sim_url, nova = cloud
    volumes = VOLUMES['breaker']
    group, (active, first, second) = application(nova, 'breaker', HOSTS[6:9],
                                          volumes)
    audit = declare(cluster, 'breaker', group, max_unhealthy=1)
    # Both down for Nova at once (forced down), then the monitor calls.
    for host in HOSTS[6:8]:
        host_event(sim_url, host, 'fail')
        [service] = nova.services.list(host=host, binary='nova-compute')
        nova.services.force_down(service.id, True)
    trigger(cluster, audit)

    shown = wait_for(lambda: said(cluster, audit, '2 of the 3 members are '
                                  'unhealthy'), 30, 'the breaker open')
    assert 'more than max_unhealthy (1): nothing moves' in \
        shown['status_message']
    assert plans_of(cluster, audit) == []
    for volume in volumes:
        assert state(sim_url)['volumes'][volume]['attached_to'] == [active]


def test_a_member_instance_ha_could_not_restart_is_failed_over(cloud):
    cluster, sim_url, nova = cloud
    volumes = VOLUMES['restarts']
    group, (active, standby) = application(
        nova, 'restarts', HOSTS[9:11], volumes, HA_Enabled='True')
    audit = declare(cluster, 'restarts', group, replacement='none')
    # The restart's first call (its stop) fails: Nova still shows the
    # server running, and only instance HA knows it failed.
    requests.put(sim_url + '/simulator/faults', json={'api_failures': [{
        'method': 'POST', 'path': '/servers/%s/action' % active,
        'status': 500, 'count': 1}]}, timeout=10).raise_for_status()
    notification = failed_host.ha(cluster, 'POST', '/notifications', {
        'notification': {
            'type': 'VM', 'hostname': HOSTS[9],
            'generated_time': '2026-11-28T10:00:00',
            'payload': {'event': 'LIFECYCLE',
                        'vir_domain_event': 'STOPPED_FAILED',
                        'instance_uuid': active}}})['notification'][
        'notification_uuid']
    assert failed_host.wait_ended(cluster, notification)['status'] == \
        'failed'
    found = wait_for(lambda: taken_over(sim_url, standby, volumes), WITHIN,
                     'the standby active')
    assert active not in found['servers']
    assert stopped_in_place(cluster, audit)
    assert [w for w in found['shared_writes']
            if w['volume'] in volumes] == []
    # Triggered again once done, the report is outlived by the plan.
    trigger_again(cluster, audit)
    wait_for(lambda: said(cluster, audit, 'every member is healthy'), 20,
             'the second run done')
