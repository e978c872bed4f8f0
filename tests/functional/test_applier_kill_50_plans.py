"""Issue 18's chaos acceptance: three appliers as processes of their own
(test_ha's cluster: RabbitMQ, MariaDB, Redis) run 50 plans of mixed
actions (live and cold migrations, resizes, stops, shelves, deletes,
changes of a compute service's state, nops and sleeps) on the simulator,
[watcher_applier] recovery = resume, while a seeded timeline SIGKILLs
them (each restarted 0.5 to 20 s later, as systemd's Restart=on-failure
does: before or after its peers adopted its plans) or SIGSTOPs them
(SIGCONT 2 to 20 s later: some are taken over meanwhile, some are not);
see applier_chaos.timeline.

No action is executed twice on the cloud, counted by the simulator's own
records (applier_chaos.KINDS says which), and every plan is in a final
state within 60 s of the last signal. The seed is
$WATCHER_HA_CHAOS_SEED (default 2), printed, so that a failure can be
replayed: the cloud, the plans and the timeline all come from it.
"""

import os
import random
import time

import requests

from tests.functional import applier_chaos
from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.fixtures import MARIADB_ONLY
from tests.functional.fixtures import wait_for
from tests.functional.ha_checks import APPLIERS
from tests.functional.cloud import auth_sections
from watcher_ha.applier.actions import nova_base
from watcher_ha.cloud import compute_services
from watcher_ha.simulator import scenario



def _seed(variable='WATCHER_HA_CHAOS_SEED', default=2):
    value = os.environ.get(variable, str(default))
    try:
        return int(value)
    except ValueError:
        raise ValueError('%s must be an integer (the seed of the run to '
                         'replay), not %r' % (variable, value)) from None


SEED = _seed()
PLANS = 50
# Drawn; those that would leave no applier running are left out.
SIGNALS = 14
# The bound, from the last signal to the last plan's end.
SETTLE = 60


@MARIADB_ONLY
def test_killed_and_frozen_appliers_execute_nothing_twice(
        ha_cluster, rabbit, tmp_path):
    print('chaos seed %d (replay with WATCHER_HA_CHAOS_SEED=%d)'
          % (SEED, SEED))
    rng = random.Random(SEED)
    work = applier_chaos.workload(rng, PLANS)
    steps = applier_chaos.timeline(rng, APPLIERS, SIGNALS)
    with services.simulator(tmp_path / 'sim', work.spec, rabbit) as sim_url:
        records = applier_chaos.CloudRecords(sim_url, rabbit)
        try:
            cluster = ha_cluster(
                watcher_applier={'recovery': 'resume', 'max_plans': 4,
                                 'poll_interval': 0.5,
                                 'migration_timeout': 60,
                                 'shelve_timeout': 60,
                                 'delete_timeout': 60},
                **auth_sections(sim_url))
            cluster.start_daemons(appliers=APPLIERS)
            plans = applier_chaos.insert_plans(cluster.engine, work.plans)
            plan_ids = [plan_id for _, plan_id in plans]
            began = time.monotonic()
            for uuid, _ in plans:
                resp = requests.post('%s/v1/action_plans/%s/start' % (
                    cluster.url, uuid), timeout=10)
                assert resp.status_code == 200, resp.text
            quiet = applier_chaos.play(cluster, steps, began, print)

            def all_final():
                states = applier_chaos.plan_states(cluster.engine, plan_ids)
                return all(state in applier_chaos.FINAL
                           for state, _, _ in states.values()) and states
            try:
                ended = wait_for(all_final, SETTLE,
                                 'every plan in a final state')
            except AssertionError:
                stuck = {i: s for i, s in applier_chaos.plan_states(
                    cluster.engine, plan_ids).items()
                    if s[0] not in applier_chaos.FINAL}
                raise AssertionError('%d plan(s) not final %d s after the '
                                     'last signal (seed %d): %s' % (
                                         len(stuck), SETTLE, SEED, stuck))
            print('every plan final %.1f s after the last signal, %.1f s '
                  'after the start' % (time.monotonic() - quiet,
                                       time.monotonic() - began))
            happened = applier_chaos.what_happened(cluster, APPLIERS)
            print('the appliers logged: %s' % dict(happened))
            # Not a run where every plan ended before the signals came.
            assert happened['recovered'], (
                'no action was interrupted by the signals (seed %d)' % SEED)
            _check_records(cluster, work, plan_ids, ended, records)
        finally:
            records.stop()


def _check_records(cluster, work, plan_ids, ended, records):
    actions = applier_chaos.action_states(cluster.engine, plan_ids)
    planned = [a for plan in work.plans for a in plan]
    outcomes = {}
    for state, _, message in ended.values():
        outcomes.setdefault(state, []).append(message)
    print('plans: %s' % {state: len(found)
                         for state, found in outcomes.items()})
    for state, messages in outcomes.items():
        if state != 'SUCCEEDED':
            print('%s: %s' % (state, messages))
    # A final plan has no action left running or waiting.
    assert {uuid: found for uuid, found in actions.items()
            if found[0] in ('PENDING', 'ONGOING', 'CANCELLING')} == {}

    def missing():
        # Each action that SUCCEEDED did its work in the cloud: its
        # records are all there (notifications arrive a little after).
        counts = records.counts()
        return counts, {action.uuid: (action.kind, record, key)
                        for action in planned
                        if actions[action.uuid][0] == 'SUCCEEDED'
                        for record, key in action.records.items()
                        if counts[record, key] < 1}
    try:
        wait_for(lambda: not missing()[1], 15,
                 'the records of every action that succeeded')
    except AssertionError:
        raise AssertionError('SUCCEEDED with no trace in the cloud (seed '
                             '%d): %s' % (SEED, missing()[1]))
    counts = missing()[0]
    twice = {action.uuid: (action.kind, actions[action.uuid],
                           {record: counts[record, key]
                            for record, key in action.records.items()})
             for action in planned
             if any(counts[record, key] > 1
                    for record, key in action.records.items())}
    assert twice == {}, 'executed twice on the cloud (seed %d)' % SEED


def test_the_cloud_records_count_each_execution(rabbit, tmp_path):
    """What the chaos test counts with: a server live-migrated there and
    back, stopped twice (started between), and a service disabled twice,
    show as two records each."""
    spec = scenario.generate(hosts=2, servers=1, seed=7)
    spec['servers'][0].update(flavor='m1.tiny', host='compute-0000',
                              state='active')
    spec['bandwidth_mb_per_s'] = 4096
    with services.simulator(tmp_path / 'sim', spec, rabbit) as sim_url:
        records = applier_chaos.CloudRecords(sim_url, rabbit)
        try:
            client = nova(sim_url)
            [server] = client.servers.list()
            for host in ('compute-0001', 'compute-0000'):
                server.live_migrate(host=host, block_migration='auto')
                wait_for(lambda h=host: nova_base.host_of(
                    client.servers.get(server.id)) == h
                    and nova_base.task_of(client.servers.get(server.id))
                    is None, 10, 'the server on %s' % host)
            server.stop()
            server.start()
            server.stop()
            service = compute_services.find(client, 'compute-0001')
            for _ in range(2):
                client.services.disable_log_reason(service.id, 'twice')
            expected = {('live-migration', server.id): 2,
                        ('instance.power_off.start', server.id): 2,
                        ('service.update', 'compute-0001'): 2}
            wait_for(lambda: {key: records.counts()[key]
                              for key in expected} == expected, 10,
                     'two records of each')
        finally:
            records.stop()
