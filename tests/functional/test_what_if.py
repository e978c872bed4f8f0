"""The what-if of a real plan, then the plan run (issue 31): the real
daemons (separate processes on RabbitMQ and MariaDB) audit the simulator
with node_resource_consolidation; ``watcher-ha what-if`` (the CLI, with
the admin's token) projects its plan; once the applier has run it, the
simulator's hosts hold what the what-if said they would, each resource
within 1 %. ``watcher-ha what-if --replay`` runs the plan on a copy of
the cloud instead: the copy ends as projected, each migration takes its
time, and the cloud and the plan stay as they were."""

import json
import os
import re
import subprocess

import pytest
import requests

from tests.functional import fixtures
from tests.functional import identity
from tests.functional import services
from tests.functional.cloud import nova_sections
from tests.functional.cloud import scenario_host
from tests.helpers.failed_host import make_segment
from tests.helpers.plans import audit
from tests.helpers.plans import off_projection
from tests.helpers.plans import plan_of
from tests.helpers.plans import start_and_wait
from watcher_ha.simulator import scenario

HOSTS = ['compute-%04d' % index for index in range(6)]
# A failover segment of every host, the last one reserved (empty; the
# strategies leave it so).
RESERVED = HOSTS[-1]


def spec():
    """Six hosts of 8 vCPUs and 16 GiB, fourteen servers of two flavors
    on the first five: consolidation empties the emptiest onto the
    others, maintenance drains one."""
    flavors = ['m1.small', 'm1.medium']
    servers = [{'name': 'vm-%02d' % index,
                'flavor': flavors[index % 2],
                'host': HOSTS[index % 5 if index < 10 else index % 2],
                'load': {'profile': 'steady', 'cpu': 0.2}}
               for index in range(14)]
    return {'credentials': dict(scenario.DEFAULT_CREDENTIALS),
            'bandwidth_mb_per_s': 8192,
            'hosts': [scenario_host(name) for name in HOSTS],
            'servers': servers}


# strategy: (goal, parameters)
CASES = {
    'node_resource_consolidation': ('server_consolidation',
                                    {'host_choice': 'specify'}),
    'host_maintenance': ('cluster_maintaining',
                         {'maintenance_node': HOSTS[1]}),
}


def what_if(cluster, plan, *options, timeout=60):
    """``watcher-ha what-if`` of ``plan``, as an operator runs it: its
    output."""
    done = subprocess.run(
        [os.path.join(fixtures.BIN, 'watcher-ha'), '--os-auth-type',
         'admin_token', '--os-token=' + identity.keystone().token(),
         '--os-endpoint', cluster.url, 'what-if', plan, *options],
        capture_output=True, text=True, timeout=timeout,
        env={'PATH': os.environ['PATH']})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize('strategy', sorted(CASES))
def test_the_cloud_ends_as_the_what_if_said(tmp_path, own_rabbit, strategy):
    goal, parameters = CASES[strategy]
    with services.cloud_cluster(tmp_path, spec(), nova_sections,
                                own_rabbit) as (cluster, sim_url):
        make_segment(cluster, HOSTS, reserved=[RESERVED])
        finished = audit(cluster, goal, strategy, parameters)
        assert finished['state'] == 'SUCCEEDED', finished
        plan, actions = plan_of(cluster, finished['uuid'])
        assert 'migrate' in {a['action_type'] for a in actions}

        table = what_if(cluster, plan)
        # What an operator reads first: the plan, then the hosts.
        assert table.startswith('What-if of action plan %s (RECOMMENDED)'
                                % plan), table
        assert 'Worst moment: ' in table and 'Disruption budget' in table
        (tmp_path / 'what-if.txt').write_text(table)
        answer = json.loads(what_if(cluster, plan, '--all-hosts',
                                    '--format', 'json'))
        assert answer['stale'] is False, answer['differences']
        [segment] = answer['failover_segments']
        assert segment['after']['reserved_hosts'] == [RESERVED]
        assert segment['after']['hosts'] == len(HOSTS) - 1
        assert answer['actions']['total'] == {
            kind: sum(1 for a in actions if a['action_type'] == kind)
            for kind in {a['action_type'] for a in actions}}
        before = requests.get(sim_url + '/simulator/state',
                              timeout=10).json()['hosts']

        ended = start_and_wait(cluster, plan)
        assert ended['state'] == 'SUCCEEDED', ended
        after = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()['hosts']
        assert len(answer['hosts']) == len(after)
        assert off_projection(answer, before, after) == []
        moved = sum(host['changed'] for host in answer['hosts'])
        # The plan changed the cloud, and the what-if saw where.
        assert moved >= 2
        assert any(before[name]['used'] != after[name]['used']
                   for name in after)


# The replay's migrations: an m1.small (2048 MB) in 1 s, an m1.medium in
# 2 s.
REPLAY_BANDWIDTH = 2048
REPLAY = ('--replay', '--bandwidth-mb-per-s', str(REPLAY_BANDWIDTH),
          '--poll-interval', '0.2')


@pytest.mark.parametrize('strategy', sorted(CASES))
def test_the_replay_times_the_plan_on_a_copy_and_touches_nothing(
        tmp_path, own_rabbit, strategy):
    goal, parameters = CASES[strategy]
    with services.cloud_cluster(tmp_path, spec(), nova_sections,
                                own_rabbit) as (cluster, sim_url):
        finished = audit(cluster, goal, strategy, parameters)
        assert finished['state'] == 'SUCCEEDED', finished
        plan, actions = plan_of(cluster, finished['uuid'])
        before = requests.get(sim_url + '/simulator/state',
                              timeout=10).json()

        answer = json.loads(what_if(cluster, plan, '--all-hosts', '--format',
                                    'json', *REPLAY, timeout=300))
        replayed = answer['replay']
        assert replayed['state'] == 'SUCCEEDED', replayed['message']
        assert {a['state'] for a in replayed['actions']} == {'SUCCEEDED'}
        # The copy ends as the what-if projected, each host within 1 %.
        assert off_projection(answer, replayed['hosts']['before'],
                              replayed['hosts']['after']) == []
        assert replayed['off_projection'] == []
        # Each live migration took its RAM over the bandwidth at least.
        migrations = [a for a in replayed['actions']
                      if a['action_type'] == 'migrate']
        assert len(migrations) == sum(a['action_type'] == 'migrate'
                                      for a in actions) >= 2
        ram = {f['name']: f['ram'] for f in scenario.FLAVORS}
        for action in migrations:
            server = before['servers'][action['resource_id']]
            assert action['seconds'] >= ram[server['flavor']] / \
                REPLAY_BANDWIDTH, action
        assert replayed['seconds'] >= max(a['seconds']
                                          for a in migrations)
        lane = replayed['slowest_lane']
        assert lane['action_type'] == 'migrate' and lane['count'] >= 2

        # The real cloud and the plan are as they were.
        after = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        assert {uuid: s['host'] for uuid, s in after['servers'].items()} \
            == {uuid: s['host'] for uuid, s in before['servers'].items()}
        assert {name: (h['status'], h['used'])
                for name, h in after['hosts'].items()} == {
            name: (h['status'], h['used'])
            for name, h in before['hosts'].items()}
        assert requests.get(sim_url + '/compute/v2.1/os-migrations',
                            headers={'X-Auth-Token': 'any'},
                            timeout=10).json()['migrations'] == []
        _, now = plan_of(cluster, finished['uuid'])
        assert {a['state'] for a in now} == {'PENDING'}
        shown = requests.get('%s/v1/action_plans/%s' % (cluster.url, plan),
                             timeout=10).json()
        assert shown['state'] == 'RECOMMENDED'

        # Twice as fast, the plan takes as long in the cloud's time,
        # within a look of the applier's per action of its longest lane.
        table = what_if(cluster, plan, *REPLAY, '--replay-speedup', '2',
                        timeout=300)
        (tmp_path / 'what-if-replay.txt').write_text(table)
        assert 'Replay on a simulated copy of the cloud: 6 host(s), 14 ' \
               'server(s)' in table
        assert 'The replayed cloud ends as projected' in table
        took = float(re.search(r'The plan took ([0-9.]+) s', table)[1])
        assert abs(took - replayed['seconds']) <= 0.4 * len(actions)
