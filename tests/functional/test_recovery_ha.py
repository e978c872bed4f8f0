"""A host-failure recovery survives its daemons: two decision engines and
two appliers as separate processes on RabbitMQ, MariaDB and a Redis, the
simulator's evacuations taking seconds.

While the failed host's servers are being evacuated, the applier running
the recovery plan and the engine following the notification are killed
(SIGKILL): the survivors take both over, the plan is carried on (not
cancelled, whatever [watcher_applier] recovery says), every server ends
on the reserved host, each evacuated exactly once (the simulator's
migration records), none running twice, and the notification finished.
"""

import requests
import sqlalchemy as sa

from tests import servers
from tests.functional import daemons
from tests.functional.cloud import simulator
from tests.functional.fixtures import wait_for
from tests.functional.test_host_maintenance import nova_sections
from tests.functional.test_host_recovery import FAILED
from tests.functional.test_host_recovery import SPARE
from tests.functional.test_host_recovery import ha
from tests.functional.test_host_recovery import report_failure
from tests.functional.test_host_recovery import segment_of
from tests.functional.test_host_recovery import spec
from tests.functional.test_host_recovery import wait_ended
from watcher_ha.db import models


def slow_spec():
    made = spec()
    made['evacuate_seconds'] = 6
    return made


def _owners(engine, notification):
    with engine.connect() as conn:
        row = conn.execute(sa.select(
            models.HostNotification.hostname,
            models.HostNotification.recovery_audit_uuid).where(
                models.HostNotification.uuid == notification)).first()
        if row is None or row.recovery_audit_uuid is None:
            return None
        plan = conn.execute(sa.select(
            models.ActionPlan.hostname, models.ActionPlan.id)
            .join(models.Audit, models.ActionPlan.audit_id
                  == models.Audit.id)
            .where(models.Audit.uuid == row.recovery_audit_uuid)).first()
        if plan is None or plan.hostname is None:
            return None
        evacuating = conn.execute(sa.select(sa.func.count()).where(
            models.Action.action_plan_id == plan.id,
            models.Action.action_type == 'evacuate',
            models.Action.state == 'ONGOING')).scalar()
        return (row.hostname, plan.hostname) if evacuating else None


def test_a_recovery_outlives_its_engine_and_its_applier(tmp_path):
    rabbit, delete = servers.create_rabbit_vhost()
    sections = nova_sections
    try:
        with servers.database('mysql') as (db_url, _), \
                simulator(tmp_path / 'sim', slow_spec()) as sim_url, \
                daemons.cluster(tmp_path, db_url, rabbit, coordination={
                    'backend_url': servers.redis_coordination_url()},
                    **sections(sim_url)) as cluster:
            cluster.start_daemons(engines=['engine-1', 'engine-2'],
                                  appliers=['applier-1', 'applier-2'])
            engine = sa.create_engine(db_url)
            segment_of(cluster)
            before = requests.get(sim_url + '/simulator/state',
                                  timeout=10).json()['servers']
            uuid = report_failure(cluster, sim_url)
            engine_host, applier_host = wait_for(
                lambda: _owners(engine, uuid), 60,
                'evacuations under way')
            cluster.kill(engine_host)
            cluster.kill(applier_host)
            ended = wait_ended(cluster, uuid)
            assert ended['status'] == 'finished', ended

            after = requests.get(sim_url + '/simulator/state',
                                 timeout=10).json()
            moved = [u for u, s in before.items() if s['host'] == FAILED]
            assert {after['servers'][u]['host'] for u in moved} == {SPARE}
            assert after['split_brain'] == []
            migrations = requests.get(
                sim_url + '/compute/v2.1/os-migrations?migration_type='
                'evacuation', headers={'X-Auth-Token': 'any',
                                       'OpenStack-API-Version':
                                           'compute 2.96'},
                timeout=10).json()['migrations']
            evacuations = sorted(m['instance_uuid'] for m in migrations)
            assert evacuations == sorted(moved), evacuations
            vmoves = ha(cluster, 'GET', '/notifications/%s/vmoves'
                        % uuid)['vmoves']
            assert {m['status'] for m in vmoves} == {'succeeded'}
            engine.dispose()
    finally:
        delete()
