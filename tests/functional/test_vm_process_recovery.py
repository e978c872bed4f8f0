"""VM and PROCESS notifications recovered end to end: the real daemons
(separate processes on RabbitMQ and MariaDB, started once for the
module) against the simulator.

A server whose guest failed (Nova's power sync stopped it) is reported by
its instance monitor: the decision engine starts an instance_recovery
audit, whose plan restarts it, and the notification ends finished; the
report of a server without HA_Enabled is ignored, saying why. A host
whose nova-compute stopped is reported by its process monitor: the
process_recovery plan puts the host on maintenance and disables its
compute service, and the notification ends finished.
"""

import contextlib

import pytest
import requests

from tests.functional import services
from tests.functional.cloud import nova_sections
from tests.helpers.failed_host import ha
from tests.helpers.failed_host import wait_ended
from watcher_ha.decision_engine.strategy import process_recovery
from watcher_ha.simulator import scenario

HOSTS = ('compute-0000', 'compute-0001', 'compute-0002')
CRASHED, PLAIN = 'crashed', 'plain'


@pytest.fixture(scope='module')
def cloud(tmp_path_factory, rabbit):
    """(cluster, simulator URL, {server name: uuid}), the segment of the
    three hosts made."""
    tmp_path = tmp_path_factory.mktemp('vm-process')
    spec = scenario.generate(hosts=3, servers=3, seed=7)
    for server, name, metadata in zip(
            spec['servers'], (CRASHED, PLAIN),
            ({'HA_Enabled': 'True'}, {})):
        server.update(name=name, host=HOSTS[1], state='stopped',
                      metadata=metadata)

    def sections(url):
        found = nova_sections(url)
        found['instance_ha'] = {'recovery_retry_interval': 1}
        return found
    with contextlib.ExitStack() as stack:
        db_url, _ = stack.enter_context(services.database('mysql'))
        sim_url = stack.enter_context(
            services.simulator(tmp_path / 'sim', spec))
        cluster = stack.enter_context(services.cluster(
            tmp_path, db_url, rabbit, **sections(sim_url)))
        cluster.start_daemons(engines=['engine-1'], appliers=['applier-1'])
        segment = ha(cluster, 'POST', '/segments', {'segment': {
            'name': 'rack-1', 'recovery_method': 'auto',
            'service_type': 'COMPUTE'}})['segment']
        for name in HOSTS:
            ha(cluster, 'POST', '/segments/%s/hosts' % segment['uuid'],
               {'host': {'name': name, 'type': 'COMPUTE',
                         'control_attributes': ''}})
        state = requests.get(sim_url + '/simulator/state',
                             timeout=10).json()
        yield cluster, sim_url, segment, {
            s['name']: uuid for uuid, s in state['servers'].items()}


def report(cluster, kind, host, payload):
    return ha(cluster, 'POST', '/notifications', {'notification': {
        'type': kind, 'hostname': host,
        'generated_time': '2026-11-24T10:00:00', 'payload': payload}})[
        'notification']['notification_uuid']


def steps(cluster, uuid):
    return [(s['name'], s['state'], s['progress']) for s in ha(
        cluster, 'GET', '/notifications/' + uuid, version='1.1')[
        'notification']['recovery_workflow_details']]


def test_a_server_whose_guest_failed_is_restarted(cloud):
    cluster, sim_url, _segment, uuids = cloud
    failed = report(cluster, 'VM', HOSTS[1], {
        'event': 'LIFECYCLE', 'vir_domain_event': 'STOPPED_FAILED',
        'instance_uuid': uuids[CRASHED]})
    left = report(cluster, 'VM', HOSTS[1], {
        'event': 'LIFECYCLE', 'vir_domain_event': 'STOPPED_FAILED',
        'instance_uuid': uuids[PLAIN]})
    ended = wait_ended(cluster, failed)
    assert (ended['status'], ended['message']) == ('finished', None)
    assert steps(cluster, failed) == [('restart_server', 'SUCCESS', 1.0)]
    ignored = wait_ended(cluster, left, statuses=('ignored', 'finished',
                                                  'failed'))
    assert ignored['status'] == 'ignored', ignored
    assert 'does not have the metadata HA_Enabled=True' in ignored[
        'message']
    assert steps(cluster, left) == []
    after = requests.get(sim_url + '/simulator/state', timeout=10).json()
    assert after['servers'][uuids[CRASHED]]['vm_state'] == 'active'
    assert after['servers'][uuids[CRASHED]]['host'] == HOSTS[1]
    assert after['servers'][uuids[PLAIN]]['vm_state'] == 'stopped'
    # Its recovery is an audit of the Watcher API too.
    [audit] = [a for a in requests.get(
        cluster.url + '/v1/audits?strategy=instance_recovery',
        timeout=10).json()['audits'] if failed in a['name']]
    assert audit['state'] == 'SUCCEEDED', audit


def test_a_host_whose_nova_compute_stopped_is_disabled_and_on_maintenance(
        cloud):
    cluster, sim_url, segment, _uuids = cloud
    uuid = report(cluster, 'PROCESS', HOSTS[2], {
        'event': 'STOPPED', 'process_name': 'nova-compute'})
    ended = wait_ended(cluster, uuid)
    assert ended['status'] == 'finished', ended
    assert steps(cluster, uuid) == [
        ('set_host_maintenance', 'SUCCESS', 1.0),
        ('change_nova_service_state', 'SUCCESS', 1.0)]
    host = requests.get(sim_url + '/simulator/state', timeout=10).json()[
        'hosts'][HOSTS[2]]
    assert (host['status'], host['disabled_reason'], host['forced_down']) \
        == ('disabled', process_recovery.DISABLED_REASON, False)
    hosts = {h['name']: h for h in ha(
        cluster, 'GET', '/segments/%s/hosts' % segment['uuid'])['hosts']}
    assert [n for n in HOSTS if hosts[n]['on_maintenance']] == [HOSTS[2]]
