"""A host-failure recovery survives its daemons: two decision engines and
two appliers as separate processes on RabbitMQ, MariaDB and a Redis, the
simulator's evacuations taking seconds.

While the failed host's servers are being evacuated, the applier running
the recovery plan and the engine following the notification are killed
(SIGKILL): the survivors take both over, the plan is carried on (not
cancelled, whatever [watcher_applier] recovery says), every server ends
on the reserved host, each evacuated exactly once (the simulator's
migration records), none running twice, and the notification finished.
Then the same when both are paused (SIGSTOP) for longer than a take-over
takes, then resumed (SIGCONT), while the reserved host that took the
servers fails in its turn.
"""

import signal
import time

import requests
import sqlalchemy as sa

from tests.functional import services
from tests.functional.cloud import evacuations
from tests.functional.fixtures import wait_for
from tests.functional.cloud import nova_sections
from tests.helpers.failed_host import FAILED
from tests.helpers.failed_host import SPARE
from tests.helpers.failed_host import SPARE_2
from tests.helpers.failed_host import ha
from tests.helpers.failed_host import report_failure
from tests.helpers.failed_host import segment_of
from tests.helpers.failed_host import spec
from tests.helpers.failed_host import recovery_owners
from tests.helpers.failed_host import wait_ended
from watcher_ha.db import models


def slow_spec():
    made = spec()
    made['evacuate_seconds'] = 6
    return made


def _each_moved_once(cluster, sim_url, before, uuid, source, dest,
                     settle=0):
    """The recovery ``uuid`` finished, every server of ``source`` on
    ``dest``, each evacuated exactly once and none ever running twice
    (looked at ``settle`` seconds after it finished)."""
    ended = wait_ended(cluster, uuid)
    assert ended['status'] == 'finished', ended
    time.sleep(settle)
    after = requests.get(sim_url + '/simulator/state', timeout=10).json()
    moved = [u for u, s in before.items() if s['host'] == source]
    assert moved
    assert {after['servers'][u]['host'] for u in moved} == {dest}
    assert after['split_brain'] == []
    made = sorted(m['instance_uuid'] for m in evacuations(sim_url)
                  if m['source_compute'] == source)
    assert made == sorted(moved), made
    vmoves = ha(cluster, 'GET', '/notifications/%s/vmoves' % uuid)[
        'vmoves']
    assert {m['status'] for m in vmoves} == {'succeeded'}
    return after['servers']


def _plan_owner(engine, notification):
    with engine.connect() as conn:
        return conn.execute(sa.select(models.ActionPlan.hostname)
                            .join(models.Audit, models.ActionPlan.audit_id
                                  == models.Audit.id)
                            .join(models.HostNotification,
                                  models.HostNotification.recovery_audit_uuid
                                  == models.Audit.uuid)
                            .where(models.HostNotification.uuid
                                   == notification)).scalar()


def _transactions(engine):
    """What MariaDB's open transactions are doing and waiting for: what a
    take-over that does not come may be stuck behind."""
    with engine.connect() as conn:
        return {name: [dict(row._mapping) for row in conn.exec_driver_sql(
            query)] for name, query in (
            ('transactions', 'SELECT trx_mysql_thread_id, trx_state, '
             'trx_started, trx_wait_started, trx_rows_locked, trx_query '
             'FROM information_schema.innodb_trx'),
            ('waits', 'SELECT * FROM information_schema.innodb_lock_waits'),
            ('sessions', "SELECT id, command, time, state, info FROM "
             "information_schema.processlist WHERE command != 'Sleep' "
             "OR time > 5"))}


def test_a_recovery_outlives_its_daemons_killed_or_paused(
        tmp_path, own_rabbit):
    """First failure: the engine following the recovery and the applier
    running it are killed mid-evacuation. Second failure (the reserved
    host that took the first's servers), once they are back: both are
    paused (SIGSTOP) for longer than a take-over takes (18 s), then resumed
    (SIGCONT): what the resumed applier was doing (waiting for
    evacuations, recording them) stops at its fence."""
    with services.cloud_cluster(
            tmp_path, slow_spec(), nova_sections, own_rabbit,
            engines=['engine-1', 'engine-2'],
            appliers=['applier-1', 'applier-2'],
            coordination={'backend_url': services.redis_coordination_url()}
            ) as (cluster, sim_url):
        engine = sa.create_engine(cluster.database_url)
        segment_of(cluster)
        before = requests.get(sim_url + '/simulator/state',
                              timeout=10).json()['servers']
        uuid = report_failure(cluster, sim_url)
        engine_host, applier_host = wait_for(
            lambda: recovery_owners(engine, uuid), 60, 'evacuations under way')
        cluster.kill(engine_host)
        cluster.kill(applier_host)
        before = _each_moved_once(cluster, sim_url, before, uuid,
                                  FAILED, SPARE)

        cluster.start_daemons(engines=[engine_host],
                              appliers=[applier_host])
        uuid = report_failure(cluster, sim_url, failed=SPARE)
        engine_host, applier_host = wait_for(
            lambda: recovery_owners(engine, uuid), 60, 'evacuations under way')
        cluster.kill(engine_host, signal.SIGSTOP)
        cluster.kill(applier_host, signal.SIGSTOP)
        paused = time.monotonic()
        try:
            # member_timeout is 10 s.
            try:
                wait_for(lambda: _plan_owner(engine, uuid) not in (
                    applier_host, None), 40, 'the recovery plan taken over')
            except AssertionError as err:
                raise AssertionError('%s; the database meanwhile: %s' % (
                    err, _transactions(engine))) from None
            time.sleep(max(0, 18 - (time.monotonic() - paused)))
        finally:
            cluster.kill(applier_host, signal.SIGCONT)
            cluster.kill(engine_host, signal.SIGCONT)
        _each_moved_once(cluster, sim_url, before, uuid, SPARE,
                         SPARE_2, settle=5)
        engine.dispose()


def _restart_owner(engine, notification):
    """The applier running the restart of the VM recovery
    ``notification``, once it runs."""
    with engine.connect() as conn:
        return conn.execute(
            sa.select(models.ActionPlan.hostname)
            .join(models.Action,
                  models.Action.action_plan_id == models.ActionPlan.id)
            .join(models.Audit,
                  models.ActionPlan.audit_id == models.Audit.id)
            .where(models.Audit.name.contains(notification),
                   models.Action.action_type == 'restart_server',
                   models.Action.state == 'ONGOING')).scalar()


def test_a_server_restart_outlives_its_applier_killed(tmp_path, own_rabbit):
    """A VM recovery's applier is killed while Nova has its request to
    start the server (which takes 20 s to be answered): the applier taking
    the plan over runs the restart again, Nova refuses its start since the
    first one came through meanwhile, and that counts as done: the
    notification finishes in its first attempt, the server ACTIVE."""
    made = spec()
    stopped = next(s for s in made['servers'])
    stopped.update(name='crashed', state='stopped')
    with services.cloud_cluster(
            tmp_path, made, nova_sections, own_rabbit,
            engines=['engine-1'], appliers=['applier-1', 'applier-2'],
            coordination={'backend_url': services.redis_coordination_url()}
            ) as (cluster, sim_url):
        engine = sa.create_engine(cluster.database_url)
        segment_of(cluster)
        uuid_of = {s['name']: u for u, s in requests.get(
            sim_url + '/simulator/state', timeout=10).json()[
            'servers'].items()}
        crashed = uuid_of['crashed']
        requests.put(sim_url + '/simulator/faults', json={
            'api_failures': [{'method': 'POST', 'delay': 20,
                              'path': '/servers/%s/action' % crashed}]},
            timeout=10).raise_for_status()
        uuid = ha(cluster, 'POST', '/notifications', {'notification': {
            'type': 'VM', 'hostname': FAILED,
            'generated_time': '2026-11-25T10:00:00',
            'payload': {'event': 'LIFECYCLE',
                        'vir_domain_event': 'STOPPED_FAILED',
                        'instance_uuid': crashed}}})['notification'][
            'notification_uuid']
        owner = wait_for(lambda: _restart_owner(engine, uuid), 60,
                         'the restart under way')
        # Its start request is at Nova.
        time.sleep(2)
        cluster.kill(owner)
        ended = wait_ended(cluster, uuid)
        assert (ended['status'], ended['message']) == ('finished',
                                                       None), ended
        audits = [a for a in requests.get(
            cluster.url + '/v1/audits?strategy=instance_recovery',
            timeout=10).json()['audits'] if uuid in a['name']]
        assert len(audits) == 1, audits
        after = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        assert after['servers'][crashed]['vm_state'] == 'active'
        engine.dispose()

