"""Recovery methods and reserved-host capacity end to end: the real
daemons (separate processes on RabbitMQ and MariaDB) against the
simulator, five failover segments in one cloud.

* rack-1 (reserved_host): no reserved host holds the failed host's
  servers alone; two are claimed and both used, the third stays reserved.
* rack-2 (reserved_host): the same, with a server Nova always refuses to
  evacuate, alone on the second reserved host: the others recover, the
  notification ends failed after its attempts, the second host goes back
  to the pool (reserved, disabled in Nova), the third is never taken.
* rack-3 (auto_priority): no enabled host has room, so ``auto`` fails
  (Nova's No valid host: the servers go to ERROR); the fallback to the
  reserved host brings them back ACTIVE.
* rack-4 (rh_priority): the reserved host is too small for any server,
  so ``reserved_host`` fails; the fallback to ``auto`` puts them where
  Nova's scheduler does.
* rack-5 (auto): the servers go where Nova's scheduler puts them.

The five hosts fail at once; rack-4's and rack-5's are reported once the
first three are recovered and the spare normal hosts enabled (enabled
before, they would have taken rack-3's servers).
"""

import requests

from tests.functional import services
from tests.functional.cloud import nova
from tests.functional.cloud import nova_sections
from tests.helpers import failed_host
from tests.helpers.failed_host import ha
from tests.helpers.failed_host import wait_ended
from watcher_ha.simulator import scenario

SEGMENTS = {
    # name: (method, failed host, [(host, reserved)])
    'rack-1': ('reserved_host', 'f1', [('r1a', True), ('r1b', True),
                                       ('r1c', True)]),
    'rack-2': ('reserved_host', 'f2', [('r2a', True), ('r2b', True),
                                       ('r2c', True)]),
    'rack-3': ('auto_priority', 'f3', [('r3', True)]),
    'rack-4': ('rh_priority', 'f4', [('r4', True), ('spare4', False)]),
    'rack-5': ('auto', 'f5', [('spare5', False)]),
}
# Kept out of Nova's scheduler until rack-4's turn.
LATE = ('spare4', 'spare5')


def _host(name, vcpus):
    # vcpus bind (no overcommit); memory and disk are plenty.
    return {'name': name, 'vcpus': vcpus, 'vcpu_ratio': 1.0,
            'memory_mb': 65536, 'disk_gb': 2000}


def spec():
    hosts = [_host(f, 16) for f in ('f1', 'f2', 'f3', 'f4', 'f5')]
    # A reserved host of rack-1 or rack-2 holds four m1.small (1 vCPU
    # each): the fifth server, an m1.tiny (packed last, being smaller),
    # needs a second one.
    hosts += [_host(r, 4) for r in ('r1a', 'r1b', 'r1c',
                                    'r2a', 'r2b', 'r2c')]
    # rack-3's and rack-4's servers fit on none of rack-1's and rack-2's
    # hosts: in auto, Nova's scheduler could otherwise put one on a
    # reserved host another recovery has just enabled, and take the room
    # that recovery claimed it for.
    hosts += [_host('r3', 12), _host('r4', 2), _host('spare4', 16),
              _host('spare5', 16)]
    flavors = scenario.FLAVORS + [{'id': '9', 'name': 'ha.big', 'vcpus': 6,
                                   'ram': 8192, 'disk': 80}]
    made = {'evacuate_seconds': 2, 'hosts': hosts, 'servers': [],
            'flavors': flavors}
    for failed, flavors in (('f1', ['m1.small'] * 4 + ['m1.tiny']),
                            ('f2', ['m1.small'] * 4 + ['m1.tiny']),
                            ('f3', ['ha.big'] * 2),
                            ('f4', ['ha.big'] * 2),
                            ('f5', ['ha.big'] * 2)):
        made['servers'] += [
            {'name': '%s-vm-%d' % (failed, n), 'flavor': flavor,
             'host': failed, 'state': 'active',
             'metadata': {'HA_Enabled': 'True'}}
            for n, flavor in enumerate(flavors)]
    return made


def sections(url):
    found = nova_sections(url)
    found['instance_ha'] = {'recovery_attempts': 2,
                            'recovery_retry_interval': 1}
    return found


def make_segments(cluster):
    made = {}
    for name, (method, failed, others) in SEGMENTS.items():
        segment = ha(cluster, 'POST', '/segments', {'segment': {
            'name': name, 'recovery_method': method,
            'service_type': 'COMPUTE'}})['segment']
        for host, reserved in [(failed, False)] + others:
            ha(cluster, 'POST', '/segments/%s/hosts' % segment['uuid'],
               {'host': {'name': host, 'type': 'COMPUTE',
                         'control_attributes': '', 'reserved': reserved}})
        made[name] = segment['uuid']
    return made


def report(cluster, failed):
    return failed_host.report(cluster, failed, '2026-11-25T10:00:00')


def hosts_of(cluster, segment):
    return {h['name']: h for h in ha(
        cluster, 'GET', '/segments/%s/hosts' % segment)['hosts']}


def test_recovery_methods_capacity_and_claims_given_back(tmp_path, own_rabbit):
    with services.cloud_cluster(
            tmp_path, spec(), sections, own_rabbit) as (cluster, sim_url):
        segments = make_segments(cluster)
        compute = nova(sim_url)
        # Reserved hosts are kept disabled in Nova, as an operator
        # sets them up.
        reserved = [h for _m, _f, others in SEGMENTS.values()
                    for h, is_reserved in others if is_reserved]
        for service in compute.services.list(binary='nova-compute'):
            if service.host in reserved + list(LATE):
                compute.services.disable_log_reason(service.id,
                                                    'spare')
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        on = {}
        for uuid, server in state['servers'].items():
            on.setdefault(server['host'], set()).add(uuid)
        stubborn = next(u for u in on['f2']
                        if state['servers'][u]['flavor'] == 'm1.tiny')
        requests.put(sim_url + '/simulator/faults', json={
            'api_failures': [{
                'method': 'POST', 'status': 500,
                'path': '/servers/%s/action' % stubborn}]},
            timeout=10).raise_for_status()

        # All fail at once (f4 and f5 are no place for rack-3's
        # servers); f4 and f5 are reported later.
        for failed in ('f1', 'f2', 'f3', 'f4', 'f5'):
            failed_host.fail(sim_url, failed)
        first = {f: report(cluster, f) for f in ('f1', 'f2', 'f3')}
        ended = {f: wait_ended(cluster, uuid)
                 for f, uuid in first.items()}
        for service in compute.services.list(binary='nova-compute'):
            if service.host in LATE:
                compute.services.enable(service.id)
        second = {f: report(cluster, f) for f in ('f4', 'f5')}
        ended.update((f, wait_ended(cluster, uuid))
                     for f, uuid in second.items())
        after = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        where = {u: (s['host'], s['vm_state'])
                 for u, s in after['servers'].items()}

        # rack-1: two reserved hosts claimed, both used.
        assert ended['f1']['status'] == 'finished', ended['f1']
        rack1 = hosts_of(cluster, segments['rack-1'])
        used = {where[u][0] for u in on['f1']}
        assert len(used) == 2 and used < {'r1a', 'r1b', 'r1c'}
        assert {where[u][1] for u in on['f1']} == {'active'}
        assert sorted(h for h in ('r1a', 'r1b', 'r1c')
                      if rack1[h]['reserved']) == sorted(
            {'r1a', 'r1b', 'r1c'} - used)

        # rack-2: failed after its attempts; the host claimed for the
        # stubborn server alone goes back; the third is never taken.
        assert ended['f2']['status'] == 'failed', ended['f2']
        assert 'gave up after 2 attempt(s)' in ended['f2']['message']
        assert where[stubborn][0] == 'f2'
        others = on['f2'] - {stubborn}
        [r2_used] = {where[u][0] for u in others}
        assert {where[u][1] for u in others} == {'active'}
        rack2 = hosts_of(cluster, segments['rack-2'])
        assert {h: rack2[h]['reserved'] for h in (
            'r2a', 'r2b', 'r2c')} == {h: h != r2_used for h in (
                'r2a', 'r2b', 'r2c')}
        assert rack2['f2']['on_maintenance'] is True
        status = {s.host: s.status for s in compute.services.list(
            binary='nova-compute')}
        # Every reserved host back in the pool is disabled again.
        assert {h: status[h] for h in ('r2a', 'r2b', 'r2c')} == {
            h: 'enabled' if h == r2_used else 'disabled'
            for h in ('r2a', 'r2b', 'r2c')}
        moves = {m['instance_uuid']: m for m in ha(
            cluster, 'GET', '/notifications/%s/vmoves' % first['f2'])[
            'vmoves']}
        assert moves[stubborn]['status'] == 'failed'

        # rack-3: auto failed, then reserved_host, within one round.
        assert ended['f3']['status'] == 'finished', ended['f3']
        assert {where[u] for u in on['f3']} == {('r3', 'active')}
        audits = [a for a in requests.get(
            cluster.url + '/v1/audits?strategy=host_recovery',
            timeout=10).json()['audits'] if first['f3'] in a['name']]
        assert len(audits) == 2, audits

        # rack-4: reserved_host failed (too small), then auto.
        assert ended['f4']['status'] == 'finished', ended['f4']
        assert {where[u][1] for u in on['f4']} == {'active'}
        assert {where[u][0] for u in on['f4']} <= set(LATE)

        # rack-5 (auto): where Nova's scheduler put them.
        assert ended['f5']['status'] == 'finished', ended['f5']
        assert {where[u][1] for u in on['f5']} == {'active'}
        assert {where[u][0] for u in on['f5']} <= set(LATE)
        assert hosts_of(cluster, segments['rack-4'])['r4'][
            'reserved'] is True
        assert status['r4'] == 'disabled'
        assert after['split_brain'] == []

