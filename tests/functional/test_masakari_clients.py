"""The unmodified clients of Masakari work against our instance-ha API: a
real watcher-ha-api process (SQLite, keystone auth), Nova the simulator.

- ``openstack segment ...``, ``openstack segment host ...`` and
  ``openstack notification ...`` of python-masakariclient;
- masakari-monitors' own code sending the host, process and instance
  failure reports (tests/functional/masakari_monitor.py).
"""

import json
import os
import socket
import subprocess
import sys

import pytest

from tests.functional import fixtures
from tests.functional import identity
from tests.functional import services
from watcher_ha.simulator import scenario

pytestmark = pytest.mark.functional

CALL_TIMEOUT = 60
# The process and instance monitors report from the machine they run on.
THIS_HOST = socket.gethostname()


@pytest.fixture(scope='module')
def api(tmp_path_factory):
    """The instance-ha endpoint of one watcher-ha-api process, whose Nova
    (the simulator) has compute-0000..3 and this machine as hosts."""
    tmp_path = tmp_path_factory.mktemp('masakari-clients')
    spec = scenario.generate(hosts=5, servers=4, seed=3)
    renamed = spec['hosts'][-1]['name']
    spec['hosts'][-1]['name'] = THIS_HOST
    for server in spec['servers']:
        if server['host'] == renamed:
            server['host'] = THIS_HOST
    with services.simulator(tmp_path / 'sim', spec) as sim_url:
        port = fixtures.free_port()
        sections = fixtures.base_config(tmp_path, port=port, nova={
            'auth_type': 'none',
            'endpoint_override': sim_url + '/compute/v2.1'})
        config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                       sections)
        fixtures.prepare_database(config)
        with services.api_process(config, port) as url:
            yield url + '/instance-ha/v1'


def openstack(api, *args, check=True):
    argv = [os.path.join(fixtures.BIN, 'openstack'),
            *identity.openstack_cli_auth(api)] + list(args)
    # Nothing from the caller's OS_* variables or clouds.yaml.
    env = {'PATH': os.environ['PATH'], 'HOME': '/nonexistent'}
    result = subprocess.run(argv, env=env, capture_output=True, text=True,
                            timeout=CALL_TIMEOUT)
    if check and result.returncode:
        pytest.fail('%s failed (%s):\n%s%s' % (' '.join(argv),
                                               result.returncode,
                                               result.stdout, result.stderr))
    return result


def as_json(api, *args):
    return json.loads(openstack(api, *args, '-f', 'json').stdout)


def test_segment_and_host_commands(api):
    made = as_json(api, 'segment', 'create', 'cli-seg', 'reserved_host',
                   'COMPUTE', '--description', 'first', '--is_enabled',
                   'True')
    assert (made['name'], made['recovery_method'], made['description'],
            made['is_enabled']) == ('cli-seg', 'reserved_host', 'first', True)
    assert as_json(api, 'segment', 'show', 'cli-seg')['uuid'] == \
        made['uuid']
    updated = as_json(api, 'segment', 'update', 'cli-seg', '--description',
                      'second', '--is_enabled', 'False')
    assert (updated['description'], updated['is_enabled']) == ('second', False)

    host = as_json(api, 'segment', 'host', 'create', 'compute-0001',
                   'COMPUTE', 'SSH', 'cli-seg', '--reserved', 'True')
    assert (host['name'], host['reserved'], host['on_maintenance']) == (
        'compute-0001', True, False)
    as_json(api, 'segment', 'host', 'create', 'compute-0002', 'COMPUTE',
            'SSH', 'cli-seg')
    refused = openstack(api, 'segment', 'host', 'create', 'no-such-host',
                        'COMPUTE', 'SSH', 'cli-seg', check=False)
    assert 'Compute service with name no-such-host could not be found' in (
        refused.stdout + refused.stderr)
    hosts = as_json(api, 'segment', 'host', 'list', 'cli-seg')
    assert sorted(h['name'] for h in hosts) == ['compute-0001',
                                                'compute-0002']
    # --limit pages on with the last item's integer id as marker.
    assert len(as_json(api, 'segment', 'host', 'list', 'cli-seg',
                       '--limit', '1')) == 2
    shown = as_json(api, 'segment', 'host', 'update', 'cli-seg',
                    'compute-0001', '--on_maintenance', 'True',
                    '--reserved', 'False')
    assert (shown['on_maintenance'], shown['reserved']) == (True, False)
    assert as_json(api, 'segment', 'host', 'show', 'cli-seg',
                   'compute-0001')['control_attributes'] == 'SSH'
    openstack(api, 'segment', 'host', 'delete', 'cli-seg', 'compute-0002')
    assert [h['name'] for h in as_json(api, 'segment', 'host', 'list',
                                       'cli-seg')] == ['compute-0001']
    openstack(api, 'segment', 'delete', 'cli-seg')
    assert 'cli-seg' not in [s['name'] for s in as_json(api, 'segment',
                                                         'list')]


def test_notification_commands(api):
    as_json(api, 'segment', 'create', 'cli-notify', 'auto', 'COMPUTE')
    as_json(api, 'segment', 'host', 'create', 'compute-0003', 'COMPUTE',
            'SSH', 'cli-notify')
    payload = {'event': 'STOPPED', 'host_status': 'NORMAL',
               'cluster_status': 'OFFLINE'}
    made = as_json(api, 'notification', 'create', 'COMPUTE_HOST',
                   'compute-0003', '2026-11-24T10:00:00.000',
                   json.dumps(payload))
    assert (made['type'], made['status'], made['payload']) == (
        'COMPUTE_HOST', 'new', payload)
    shown = as_json(api, 'notification', 'show', made['notification_uuid'])
    assert shown['recovery_workflow_details'] == []
    listed = as_json(api, 'notification', 'list')
    assert made['notification_uuid'] in [n['notification_uuid']
                                         for n in listed]
    # The segment is held while the report waits for its recovery.
    held = openstack(api, 'segment', 'update', 'cli-notify',
                     '--description', 'x', check=False)
    assert 'in-use to process notifications' in held.stdout + held.stderr


def test_masakari_monitors_reports_arrive(api, tmp_path):
    as_json(api, 'segment', 'create', 'monitored', 'auto', 'COMPUTE')
    for name in ('compute-0002', THIS_HOST):
        as_json(api, 'segment', 'host', 'create', name, 'COMPUTE', 'SSH',
                'monitored')
    config = tmp_path / 'masakarimonitors.conf'
    config.write_text('[api]\nauth_type = admin_token\ntoken = %s\n'
                      'endpoint = %s\n[host]\ndisable_ipmi_check = true\n'
                      % (services.keystone().token(), api))
    instance = '11111111-2222-4333-8444-555555555555'
    monitor = [sys.executable, os.path.join(os.path.dirname(__file__),
                                            'masakari_monitor.py'),
               str(config), 'compute-0002', instance]
    subprocess.run(monitor, check=True, capture_output=True,
                   timeout=CALL_TIMEOUT)
    reports = {n['type']: n for n in as_json(api, 'notification', 'list')
               if n['source_host_uuid'] in _host_uuids(api, 'monitored')}
    assert reports['COMPUTE_HOST']['payload'] == {
        'event': 'STOPPED', 'cluster_status': 'OFFLINE',
        'host_status': 'NORMAL'}
    assert reports['PROCESS']['payload'] == {
        'event': 'STOPPED', 'process_name': 'nova-compute'}
    assert reports['VM']['payload'] == {
        'event': 'LIFECYCLE', 'instance_uuid': instance,
        'vir_domain_event': 'STOPPED_FAILED'}
    # The monitors send again (a restart, a retry): duplicates (409),
    # which they take as answered and do not retry.
    subprocess.run(monitor, check=True, capture_output=True,
                   timeout=CALL_TIMEOUT)
    assert len([n for n in as_json(api, 'notification', 'list')
                if n['source_host_uuid'] in _host_uuids(
                    api, 'monitored')]) == 3


def _host_uuids(api, segment):
    return {h['uuid'] for h in as_json(api, 'segment', 'host', 'list',
                                       segment)}
