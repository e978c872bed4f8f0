"""host_maintenance end to end: the real daemons (separate processes on
RabbitMQ and MariaDB) against the simulator through Keystone password
auth. The audit drains a host; a live migration made to fail by fault
injection leaves the plan FAILED, the server where it was, the reason in
status_message."""

import requests

from tests.functional import services
from tests.functional.cloud import nova_sections
from tests.helpers.plans import aggregate_template
from tests.helpers.plans import finished_audit
from tests.helpers.plans import plan_of
from tests.helpers.plans import start_and_wait
from watcher_ha.simulator import scenario


def spec():
    made = scenario.generate(hosts=4, servers=12, seed=21)
    made['bandwidth_mb_per_s'] = 4096
    return made


def maintenance(host, **parameters):
    """A one-shot host_maintenance audit of ``host``."""
    return {'goal': 'cluster_maintaining', 'strategy': 'host_maintenance',
            'audit_type': 'ONESHOT',
            'parameters': dict(parameters, maintenance_node=host)}


def run_audit(cluster, body):
    """The plan of the audit POST /v1/audits ``body`` made, which
    succeeded: (its uuid, its actions)."""
    finished = finished_audit(cluster, body)
    assert finished['state'] == 'SUCCEEDED', finished
    return plan_of(cluster, finished['uuid'])


def test_host_maintenance_drains_a_host_and_fails_cleanly(
        tmp_path, own_rabbit):
    with services.cloud_cluster(
            tmp_path, spec(), nova_sections, own_rabbit) as (cluster, sim_url):
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        host = 'compute-0001'
        on_host = {u for u, s in state['servers'].items()
                   if s['host'] == host}
        assert on_host

        plan, actions = run_audit(cluster, maintenance(host))
        kinds = sorted(a['action_type'] for a in actions)
        assert kinds.count('migrate') == len(on_host)
        assert 'change_nova_service_state' in kinds
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        assert not [u for u, s in state['servers'].items()
                    if s['host'] == host]
        assert state['hosts'][host]['status'] == 'disabled'
        assert state['hosts'][host]['disabled_reason'] == \
            'watcher_maintaining'

        # A failed live migration: the plan FAILS with the reason and
        # the server stays where it was.
        other = 'compute-0002'
        running = [u for u, s in state['servers'].items()
                   if s['host'] == other and s['vm_state'] == 'active']
        requests.put(sim_url + '/simulator/faults', json={
            'fail_migrations': ['*']}, timeout=10).raise_for_status()
        plan, _ = run_audit(cluster, maintenance(other))
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'FAILED', ended
        assert 'still on %s' % other in ended['status_message'], ended
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        assert {u for u, s in state['servers'].items()
                if s['host'] == other} >= set(running)


def test_a_scoped_drain_moves_nothing_outside_its_aggregate(
        tmp_path, own_rabbit):
    """An audit whose template scopes it to the aggregate rack-a drains
    compute-0001 onto compute-0000, its only other host, though the hosts
    of rack-b have room; nothing of rack-b moves."""
    made = spec()
    for host in made['hosts']:
        host['aggregates'] = ['rack-a' if host['name'] in (
            'compute-0000', 'compute-0001') else 'rack-b']
    with services.cloud_cluster(
            tmp_path, made, nova_sections, own_rabbit, kind='postgresql'
            ) as (cluster, sim_url):
        before = requests.get(sim_url + '/simulator/state',
                              timeout=10).json()['servers']
        template = aggregate_template(cluster, 'cluster_maintaining',
                                      'host_maintenance', 'rack-a')
        plan, _ = run_audit(cluster, {
            'audit_template_uuid': template,
            'audit_type': 'ONESHOT',
            'parameters': {'maintenance_node': 'compute-0001'}})
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        after = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()['servers']
        drained = {u for u, s in before.items()
                   if s['host'] == 'compute-0001'}
        assert drained
        assert {after[u]['host'] for u in drained} == {'compute-0000'}
        assert all(after[u]['host'] == s['host']
                   for u, s in before.items() if u not in drained)


def test_with_both_migrations_disabled_the_active_servers_are_stopped(
        tmp_path, own_rabbit):
    """Watcher 17's disable_live_migration + disable_cold_migration: the
    host is disabled and its active servers stopped; nothing moves."""
    with services.cloud_cluster(
            tmp_path, spec(), nova_sections, own_rabbit) as (cluster, sim_url):
        host = 'compute-0003'
        before = requests.get(sim_url + '/simulator/state',
                              timeout=10).json()['servers']
        active = {u for u, s in before.items()
                  if s['host'] == host and s['vm_state'] == 'active'}
        assert active
        plan, actions = run_audit(cluster, maintenance(
            host, disable_live_migration=True, disable_cold_migration=True))
        assert sorted(a['action_type'] for a in actions) == sorted(
            ['change_nova_service_state'] + ['stop'] * len(active))
        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        after = state['servers']
        assert {after[u]['vm_state'] for u in active} == {'stopped'}
        assert all(after[u]['host'] == s['host']
                   for u, s in before.items())
        assert state['hosts'][host]['status'] == 'disabled'

