"""A host-failure recovery under the faults of its backends, with the real
daemons on RabbitMQ and MariaDB against the simulator.

- The database connection is lost at each write of a recovery's rows
  (the notification taken, a reserved host claimed, an evacuation begun,
  the notification finished): before the server runs the statement, or
  once it committed it, the writer unable to tell which (sql_proxy.py).
- The coordination backend (a Redis of the test's own) restarts, losing
  every member and lock, while the servers are being evacuated.

Each time the recovery still ends finished, every server of the failed
host on one reserved host that no other failure took, evacuated exactly
once (the simulator's migration records), none running twice.
"""

import time

import requests
import sqlalchemy as sa

from tests.functional import services
from tests.functional import sql_proxy
from tests.functional.cloud import evacuations
from tests.functional.fixtures import wait_for
from tests.functional.cloud import nova_sections
from tests.helpers.failed_host import ha
from tests.helpers.failed_host import report_failure
from tests.helpers.failed_host import wait_ended
from watcher_ha.db import models

# (what is written, the statement that writes it)
WRITES = [
    ('notification taken',
     r"^UPDATE host_notifications SET .*status='running'"),
    ('reserved host claimed',
     r"^UPDATE segment_hosts SET .*reserved=(0|false)"),
    ('evacuation begun', r"^UPDATE vmoves SET .*status='ongoing'"),
    ('notification finished',
     r"^UPDATE host_notifications SET .*status='finished'"),
]
CUTS = [('statement', 'before'), ('commit', 'after')]
CASES = [(what, statement, at, when) for what, statement in WRITES
         for at, when in CUTS]
# From the cut to the notification finished.
SETTLED_WITHIN = 60
SERVERS_EACH = 2


def failed_host(index):
    return 'failed-%02d' % index


def spare_host(index):
    return 'spare-%02d' % index


def spec(failures):
    """``failures`` hosts with two servers each, as many empty reserved
    hosts; each reserved host holds one failed host's servers."""
    hosts = [{'name': name, 'vcpus': 8, 'memory_mb': 16384,
              'disk_gb': 200, 'reserved': name.startswith('spare')}
             for index in range(failures)
             for name in (failed_host(index), spare_host(index))]
    return {
        'evacuate_seconds': 1,
        'flavors': [{'id': '1', 'name': 'm1.small', 'vcpus': 2,
                     'ram': 4096, 'disk': 20}],
        'hosts': hosts,
        'servers': [{'name': 'vm-%02d-%d' % (index, n),
                     'flavor': 'm1.small', 'host': failed_host(index),
                     'metadata': {'HA_Enabled': 'True'}}
                    for index in range(failures)
                    for n in range(SERVERS_EACH)]}


def segment_of(cluster, failures):
    segment = ha(cluster, 'POST', '/segments', {'segment': {
        'name': 'rack', 'recovery_method': 'reserved_host',
        'service_type': 'COMPUTE'}})['segment']
    for index in range(failures):
        for name, reserved in ((failed_host(index), False),
                               (spare_host(index), True)):
            ha(cluster, 'POST', '/segments/%s/hosts' % segment['uuid'],
               {'host': {'name': name, 'type': 'COMPUTE',
                         'control_attributes': '', 'reserved': reserved}})


def sections(sim_url):
    found = nova_sections(sim_url)
    found['instance_ha'] = {'recovery_retry_interval': 1,
                            'recovery_attempts': 5}
    return found


def check_moves(sim_url, failed):
    """The servers of each of ``failed`` all on one former reserved host,
    no reserved host taking two failed hosts' servers, each evacuated
    once, none running twice."""
    state = requests.get(sim_url + '/simulator/state', timeout=10).json()
    placed = {}
    for server in state['servers'].values():
        source = server['name'].split('-')[1]
        placed.setdefault('failed-' + source, set()).add(server['host'])
    destinations = [placed[host] for host in failed]
    assert all(len(d) == 1 and not next(iter(d)).startswith('failed')
               for d in destinations), placed
    taken = [next(iter(d)) for d in destinations]
    assert len(set(taken)) == len(taken), placed
    assert state['split_brain'] == []
    made = evacuations(sim_url)
    evacuated = [m['instance_uuid'] for m in made if m['status'] == 'done']
    assert len(evacuated) == len(set(evacuated)) == len(failed) * \
        SERVERS_EACH, made


def test_a_connection_lost_at_any_write_of_a_recovery(tmp_path, own_rabbit):
    with services.database('mysql') as (db_url, engine), \
            services.simulator(tmp_path / 'sim',
                               spec(len(CASES))) as sim_url, \
            sql_proxy.SqlProxy(db_url) as proxy, \
            services.cluster(tmp_path, proxy.url, own_rabbit,
                             **sections(sim_url)) as cluster:
        cluster.start_daemons(engines=['engine-1'],
                              appliers=['applier-1'])
        segment_of(cluster, len(CASES))
        for index, (what, statement, at, when) in enumerate(CASES):
            case = '%s, cut %s the %s' % (what, when, at)
            proxy.arm(statement, at=at, when=when)
            uuid = report_failure(cluster, sim_url, failed_host(index))
            proxy.wait_fired(index + 1, timeout=60)
            cut = time.monotonic()
            ended = wait_ended(cluster, uuid)
            assert ended['status'] == 'finished', (case, ended)
            assert time.monotonic() - cut < SETTLED_WITHIN, case
            assert _claimed(engine) == 0, case
        check_moves(sim_url, [failed_host(i)
                              for i in range(len(CASES))])


def _claimed(engine):
    """Reserved hosts still held by a recovery (all have ended)."""
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(
            models.SegmentHost).where(
                models.SegmentHost.claimed_by.is_not(None))).scalar()


def test_a_recovery_goes_on_while_redis_restarts(tmp_path, private_redis,
                                                 own_rabbit):
    """Two engines and two appliers on a Redis that restarts (losing every
    member and lock) while the first failure's servers are evacuated and
    the second failure is reported."""
    made = spec(2)
    made['evacuate_seconds'] = 4
    with services.cloud_cluster(
            tmp_path, made, sections, own_rabbit,
            engines=['engine-1', 'engine-2'],
            appliers=['applier-1', 'applier-2'],
            coordination={'backend_url': private_redis.url}
            ) as (cluster, sim_url):
        segment_of(cluster, 2)
        first = report_failure(cluster, sim_url, failed_host(0))
        wait_for(lambda: _evacuating(cluster, first), 60,
                 'evacuations under way')
        private_redis.stop()
        second = report_failure(cluster, sim_url, failed_host(1))
        time.sleep(3)
        private_redis.start()
        for uuid in (first, second):
            ended = wait_ended(cluster, uuid)
            assert ended['status'] == 'finished', ended
        check_moves(sim_url, [failed_host(0), failed_host(1)])


def _evacuating(cluster, uuid):
    moves = ha(cluster, 'GET', '/notifications/%s/vmoves' % uuid,
               version='1.3')['vmoves']
    return any(m['status'] == 'ongoing' for m in moves)
