"""host_maintenance end to end: the real daemons (separate processes on
RabbitMQ and MariaDB) against the simulator through Keystone password
auth. The audit drains a host; a live migration made to fail by fault
injection leaves the plan FAILED, the server where it was, the reason in
status_message."""

import requests

from tests import servers
from tests.functional import daemons
from tests.functional.fixtures import wait_for
from tests.functional.cloud import simulator
from tests.functional.cloud import nova_sections
from tests.helpers.plans import start_and_wait
from watcher_ha.simulator import scenario


def spec():
    made = scenario.generate(hosts=4, servers=12, seed=21)
    made['bandwidth_mb_per_s'] = 4096
    return made


def run_audit(cluster, host):
    resp = requests.post(cluster.url + '/v1/audits', json={
        'goal': 'cluster_maintaining', 'strategy': 'host_maintenance',
        'audit_type': 'ONESHOT',
        'parameters': {'maintenance_node': host}}, timeout=10)
    assert resp.status_code == 201, resp.text
    audit = resp.json()['uuid']

    def done():
        found = requests.get(cluster.url + '/v1/audits/' + audit,
                             timeout=10).json()
        return found if found['state'] in ('SUCCEEDED', 'FAILED') else None
    finished = wait_for(done, 60, 'audit done')
    assert finished['state'] == 'SUCCEEDED', finished
    [plan] = requests.get(cluster.url + '/v1/action_plans?audit_uuid='
                          + audit, timeout=10).json()['action_plans']
    return plan['uuid']


def test_host_maintenance_drains_a_host_and_fails_cleanly(tmp_path):
    rabbit, delete = servers.create_rabbit_vhost()
    try:
        with servers.database('mysql') as (db_url, _), \
                simulator(tmp_path / 'sim', spec()) as sim_url, \
                daemons.cluster(tmp_path, db_url, rabbit,
                                **nova_sections(sim_url)) as cluster:
            cluster.start_daemons(engines=['engine-1'], appliers=['applier-1'])
            state = requests.get(sim_url + '/simulator/state',
                                 timeout=10).json()
            host = 'compute-0001'
            on_host = {u for u, s in state['servers'].items()
                       if s['host'] == host}
            assert on_host

            plan = run_audit(cluster, host)
            actions = requests.get(cluster.url + '/v1/actions?'
                                   'action_plan_uuid=' + plan,
                                   timeout=10).json()['actions']
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
            plan = run_audit(cluster, other)
            ended = start_and_wait(cluster, plan)
            assert ended['state'] == 'FAILED', ended
            assert 'still on %s' % other in ended['status_message'], ended
            state = requests.get(sim_url + '/simulator/state',
                                 timeout=10).json()
            assert {u for u, s in state['servers'].items()
                    if s['host'] == other} >= set(running)
    finally:
        delete()


def test_a_scoped_drain_moves_nothing_outside_its_aggregate(tmp_path):
    """An audit whose template scopes it to the aggregate rack-a drains
    compute-0001 onto compute-0000, its only other host, though the hosts
    of rack-b have room; nothing of rack-b moves."""
    made = spec()
    for host in made['hosts']:
        host['aggregates'] = ['rack-a' if host['name'] in (
            'compute-0000', 'compute-0001') else 'rack-b']
    rabbit, delete = servers.create_rabbit_vhost()
    try:
        with servers.database('postgresql') as (db_url, _), \
                simulator(tmp_path / 'sim', made) as sim_url, \
                daemons.cluster(tmp_path, db_url, rabbit,
                                **nova_sections(sim_url)) as cluster:
            cluster.start_daemons(engines=['engine-1'], appliers=['applier-1'])
            before = requests.get(sim_url + '/simulator/state',
                                  timeout=10).json()['servers']
            template = requests.post(cluster.url + '/v1/audit_templates',
                                     json={
                'name': 'rack-a', 'goal': 'cluster_maintaining',
                'strategy': 'host_maintenance',
                'scope': [{'host_aggregates': [{'name': 'rack-a'}]}]},
                timeout=10)
            assert template.status_code == 201, template.text
            resp = requests.post(cluster.url + '/v1/audits', json={
                'audit_template_uuid': template.json()['uuid'],
                'audit_type': 'ONESHOT',
                'parameters': {'maintenance_node': 'compute-0001'}},
                timeout=10)
            assert resp.status_code == 201, resp.text

            def done():
                found = requests.get(cluster.url + '/v1/audits/'
                                     + resp.json()['uuid'],
                                     timeout=10).json()
                return found if found['state'] in ('SUCCEEDED',
                                                   'FAILED') else None
            finished = wait_for(done, 60, 'audit done')
            assert finished['state'] == 'SUCCEEDED', finished
            [plan] = requests.get(
                cluster.url + '/v1/action_plans?audit_uuid='
                + finished['uuid'], timeout=10).json()['action_plans']
            ended = start_and_wait(cluster, plan['uuid'])
            assert ended['state'] == 'SUCCEEDED', ended
            after = requests.get(sim_url + '/simulator/state',
                                 timeout=10).json()['servers']
            drained = {u for u, s in before.items()
                       if s['host'] == 'compute-0001'}
            assert drained
            assert {after[u]['host'] for u in drained} == {'compute-0000'}
            assert all(after[u]['host'] == s['host']
                       for u, s in before.items() if u not in drained)
    finally:
        delete()


def test_with_both_migrations_disabled_the_active_servers_are_stopped(
        tmp_path):
    """Watcher 17's disable_live_migration + disable_cold_migration: the
    host is disabled and its active servers stopped; nothing moves."""
    rabbit, delete = servers.create_rabbit_vhost()
    try:
        with servers.database('mysql') as (db_url, _), \
                simulator(tmp_path / 'sim', spec()) as sim_url, \
                daemons.cluster(tmp_path, db_url, rabbit,
                                **nova_sections(sim_url)) as cluster:
            cluster.start_daemons(engines=['engine-1'], appliers=['applier-1'])
            host = 'compute-0003'
            before = requests.get(sim_url + '/simulator/state',
                                  timeout=10).json()['servers']
            active = {u for u, s in before.items()
                      if s['host'] == host and s['vm_state'] == 'active'}
            assert active
            resp = requests.post(cluster.url + '/v1/audits', json={
                'goal': 'cluster_maintaining',
                'strategy': 'host_maintenance', 'audit_type': 'ONESHOT',
                'parameters': {'maintenance_node': host,
                               'disable_live_migration': True,
                               'disable_cold_migration': True}},
                timeout=10)
            assert resp.status_code == 201, resp.text

            def done():
                found = requests.get(cluster.url + '/v1/audits/'
                                     + resp.json()['uuid'],
                                     timeout=10).json()
                return found if found['state'] in ('SUCCEEDED',
                                                   'FAILED') else None
            finished = wait_for(done, 60, 'audit done')
            assert finished['state'] == 'SUCCEEDED', finished
            [plan] = requests.get(
                cluster.url + '/v1/action_plans?audit_uuid='
                + finished['uuid'], timeout=10).json()['action_plans']
            actions = requests.get(cluster.url + '/v1/actions?'
                                   'action_plan_uuid=' + plan['uuid'],
                                   timeout=10).json()['actions']
            assert sorted(a['action_type'] for a in actions) == sorted(
                ['change_nova_service_state'] + ['stop'] * len(active))
            ended = start_and_wait(cluster, plan['uuid'])
            assert ended['state'] == 'SUCCEEDED', ended
            state = requests.get(sim_url + '/simulator/state',
                                 timeout=10).json()
            after = state['servers']
            assert {after[u]['vm_state'] for u in active} == {'stopped'}
            assert all(after[u]['host'] == s['host']
                       for u, s in before.items())
            assert state['hosts'][host]['status'] == 'disabled'
    finally:
        delete()
