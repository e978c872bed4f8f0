"""The what-if of a real plan, then the plan run (issue 31): the real
daemons (separate processes on RabbitMQ and MariaDB) audit the simulator
with node_resource_consolidation; ``watcher-ha what-if`` (the CLI, with
the admin's token) projects its plan; once the applier has run it, the
simulator's hosts hold what the what-if said they would, each resource
within 1 %."""

import json
import os
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


def what_if(cluster, plan, *options):
    """``watcher-ha what-if`` of ``plan``, as an operator runs it: its
    output."""
    done = subprocess.run(
        [os.path.join(fixtures.BIN, 'watcher-ha'), '--os-auth-type',
         'admin_token', '--os-token=' + identity.keystone().token(),
         '--os-endpoint', cluster.url, 'what-if', plan, *options],
        capture_output=True, text=True, timeout=60,
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
