"""An audit pipeline end to end (issue 31's acceptance): the real daemons
(separate processes on RabbitMQ and MariaDB) plan a three-stage cascade on
the simulator, host_maintenance -> workload_balance -> saving_energy,
reading its metrics through a real Prometheus and its Bare Metal API, and
the applier runs the one plan.

Eight hosts: compute-0000 is to be maintained (two idle servers), compute-0001
is hot (three busy servers, 67.5 % of its vcpus), compute-0002 runs an
idle server, the others are empty. The plan drains compute-0000, moves
load off compute-0001, powers off the hosts left empty, never sends
anything to compute-0000 after stage 1 nor powers it off, and moves no
server twice; once run, the cloud is as the plan says.

Before it runs, the what-if projects the pipeline's plan; once run, every
host holds what it said, each resource within 1 %.
"""

import requests
import sqlalchemy as sa

from tests.functional import prometheus_server
from tests.functional import services
from tests.functional.cloud import nova_sections
from tests.functional.cloud import scenario_host
from tests.helpers import pipelines
from tests.helpers.plans import check_applied
from tests.helpers.plans import off_projection
from tests.helpers.plans import start_and_wait
from tests.functional.fixtures import wait_for
from watcher_ha.db import models
from watcher_ha.simulator import scenario

PERIOD = prometheus_server.PERIOD
MAINTAINED, HOT = 'compute-0000', 'compute-0001'


def _server(name, host, flavor, cpu):
    return {'name': name, 'flavor': flavor, 'host': host,
            'load': {'profile': 'steady', 'cpu': cpu}}


SPEC = {
    'credentials': dict(scenario.DEFAULT_CREDENTIALS),
    'bandwidth_mb_per_s': 8192, 'power_seconds': 1, 'boot_seconds': 1,
    'hosts': [scenario_host('compute-%04d' % i) for i in range(8)],
    'servers': [_server('idle-a', MAINTAINED, 'm1.small', 0.1),
                _server('idle-b', MAINTAINED, 'm1.small', 0.1),
                _server('idle-c', 'compute-0002', 'm1.small', 0.1)]
    + [_server('busy-%d' % i, HOT, 'm1.medium', 0.9) for i in range(3)],
}


def _sections(sim_url, prometheus_url):
    found = nova_sections(sim_url)
    found['ironic'] = dict(found['nova'])
    found['watcher_applier']['change_node_power_state_timeout'] = 60
    host, port = prometheus_url.rsplit('//', 1)[1].split(':')
    found['watcher_datasources'] = {'datasources': 'prometheus',
                                    'query_max_retries': 2,
                                    'query_interval': 0}
    found['prometheus_client'] = {'host': host, 'port': port}
    return found


def _stages(engine, plan_uuid):
    """{action uuid: the position of the stage that proposed it}."""
    stage = models.AuditPipelineStage
    with engine.connect() as conn:
        return dict(conn.execute(
            sa.select(models.Action.uuid, stage.position)
            .join(stage, models.Action.audit_pipeline_stage_id == stage.id)
            .join(models.ActionPlan,
                  models.Action.action_plan_id == models.ActionPlan.id)
            .where(models.ActionPlan.uuid == plan_uuid)).all())


def test_a_three_stage_pipeline_is_one_plan_that_keeps_maintenance(
        tmp_path, own_rabbit):
    with services.database('mysql') as (db_url, engine), \
            prometheus_server.scraped_simulator(tmp_path, SPEC) as (
                sim_url, prometheus_url), \
            services.cluster(tmp_path, db_url, own_rabbit,
                             **_sections(sim_url, prometheus_url)
                             ) as cluster:
        cluster.start_daemons(engines=['engine-1'], appliers=['applier-1'])
        url = cluster.url
        pipelines.template(url, 'maintain', 'cluster_maintaining',
                           'host_maintenance',
                           {'maintenance_node': MAINTAINED})
        pipelines.template(url, 'balance', 'workload_balancing',
                           'workload_balance', {'period': PERIOD})
        pipelines.template(url, 'save', 'saving_energy', 'saving_energy',
                           {'min_free_hosts_num': 0,
                            'free_used_percent': 0})
        uuid = pipelines.create(url, ['maintain', 'balance', 'save'])
        done = wait_for(lambda: pipelines.shown(url, uuid)['state']
                        in pipelines.PIPELINE_ENDS and
                        pipelines.shown(url, uuid), 120, 'pipeline planned')
        assert done['state'] == 'SUCCEEDED', done
        [(plan, actions)] = pipelines.plans_of(url, uuid)
        assert (plan['audit_uuid'], plan['audit_pipeline_uuid']) == (
            None, uuid)
        stage_of = _stages(engine, plan['uuid'])
        assert set(stage_of) == {a['uuid'] for a in actions}
        moves = [a['input_parameters'] for a in actions
                 if a['action_type'] == 'migrate']
        power = {a['input_parameters']['resource_name']:
                 a['input_parameters']['state'] for a in actions
                 if a['action_type'] == 'change_node_power_state'}
        # Stage 1 drains the maintained host; stage 2 moves load off the
        # hot one; no server moves twice.
        assert {m['resource_name'] for m in moves
                if m['source_node'] == MAINTAINED} == {'idle-a', 'idle-b'}
        assert any(m['source_node'] == HOT for m in moves), moves
        assert len({m['resource_id'] for m in moves}) == len(moves), moves
        # The maintained host stays out of every later stage.
        assert all(m['destination_node'] != MAINTAINED for m in moves)
        assert MAINTAINED not in power
        for action in actions:
            if MAINTAINED in (action['input_parameters'].get(
                    'resource_name'), action['input_parameters'].get(
                    'destination_node')):
                assert stage_of[action['uuid']] == 0, action
        # Stage 3 powers off only hosts the plan leaves empty.
        hosts_after = {m['destination_node'] for m in moves} | {
            'compute-0002', HOT}
        assert power and set(power.values()) == {'off'}, (power, moves)
        assert not set(power) & hosts_after, (power, moves)
        assert {stage_of[a['uuid']] for a in actions
                if a['action_type'] == 'change_node_power_state'} == {2}

        # What the what-if says the plan will do (a pipeline's plan).
        projected = requests.get(
            '%s/v1/action_plans/%s/what_if?all_hosts=true'
            % (url, plan['uuid']), headers=pipelines.V14, timeout=60)
        assert projected.status_code == 200, projected.text
        answer = projected.json()
        assert (answer['audit_uuid'], answer['audit_pipeline_uuid']) == (
            None, uuid)
        assert answer['goal'] == ('cluster_maintaining, workload_balancing, '
                                  'saving_energy'), answer['goal']
        before = requests.get(sim_url + '/simulator/state',
                              timeout=10).json()['hosts']
        ended = start_and_wait(cluster, plan['uuid'],
                               version='infra-optim 1.7, watcher-ha 1.4')
        assert ended['state'] == 'SUCCEEDED', ended
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        # The cloud ends as the what-if said, each host within 1 %.
        assert off_projection(answer, before, state['hosts']) == []
        [(_, ran)] = pipelines.plans_of(url, uuid)
        check_applied(ran, state)
        assert not [s for s in state['servers'].values()
                    if s['host'] == MAINTAINED]
        assert state['hosts'][MAINTAINED]['status'] == 'disabled'
        for host in power:
            assert not state['hosts'][host]['powered_on'], host
