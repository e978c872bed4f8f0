"""watcher-ha-status upgrade check, run as an operator runs it before a
(re)start: against a real configuration file, a SQLite database migrated
or not, the simulator as the cloud (Keystone's catalog, Nova and
Placement, an older Nova too) and a Redis or file coordination backend.
Exit codes: 0 all passed, 1 a warning, 2 a failure."""

import json
import os
import subprocess

from tests.functional import cloud
from tests.functional import fixtures
from tests.functional import services

STATUS = os.path.join(fixtures.BIN, 'watcher-ha-status')
CHECKS = ['Database', 'API authentication', 'Nova API', 'Placement API',
          'Coordination backend', 'Unused options']


def watcher_style_config(tmp_path, url, coordination_url, **extra):
    """Credentials as a Watcher 17 deployment sets them: once, in
    [watcher_clients_auth], for every service it calls."""
    sections = fixtures.base_config(tmp_path, **extra)
    sections['watcher_clients_auth'] = {
        'auth_type': 'password', 'auth_url': url + '/identity/v3',
        'username': 'admin', 'password': 'admin', 'project_name': 'admin',
        'user_domain_name': 'Default', 'project_domain_name': 'Default'}
    sections['coordination'] = {'backend_url': coordination_url}
    return fixtures.write_config(tmp_path / 'watcher-ha.conf', sections)


def upgrade_check(config_file, *args):
    return subprocess.run(
        [STATUS, '--config-file', str(config_file), 'upgrade', 'check',
         *args], capture_output=True, text=True, timeout=120)


def results(config_file):
    """{check: (code, details)} of the JSON output."""
    done = upgrade_check(config_file, '--json')
    checks = json.loads(done.stdout)['checks']
    assert [check['check'] for check in checks] == CHECKS
    return done.returncode, {check['check']: (check['result'],
                                              check['details'])
                             for check in checks}


def test_a_ready_deployment_passes(tmp_path):
    redis = services.redis_coordination_url()
    with services.simulator(tmp_path / 'sim', cloud.SMALL) as url:
        config = watcher_style_config(tmp_path, url, redis)
        fixtures.db_manage(config, 'upgrade')
        done = upgrade_check(config)
        code, checks = results(config)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count('Result: Success') == len(CHECKS)
    assert code == 0
    assert {check: result for check, (result, _) in checks.items()} == {
        check: 0 for check in CHECKS}
    assert 'Nova at %s/compute/v2.1/ serves microversions 2.1 to 2.96' \
        % url in checks['Nova API'][1]
    assert 'redis://127.0.0.1:6379' in checks['Coordination backend'][1]


def test_options_of_watcher_that_mean_nothing_here_warn(tmp_path):
    extra = {
        # Watcher's names of ours: accepted, so not reported.
        'watcher_planner': {'planner': 'weight'},
        'nova_client': {'region_name': 'RegionOne',
                        # Ignored, with why.
                        'api_version': '2.56'},
        'api': {'enable_ssl_api': 'false'},
        'DEFAULT': {'bindir': '/usr/local/bin'},
        'watcher_workflow_engines.taskflow': {'max_workers': '4'},
        # oslo.concurrency's, read by the bus (use_queue_manager), and
        # Watcher's name of our collectors: read, so not reported.
        'oslo_concurrency': {'lock_path': str(tmp_path)},
        'collector': {'collector_plugins': 'compute'},
        # Nobody's: mistyped.
        'oslo_messaging_rabbit': {'use_queue_manger': 'true'},
    }
    with services.simulator(tmp_path / 'sim', cloud.SMALL) as url:
        config = watcher_style_config(
            tmp_path, url, 'file://%s' % (tmp_path / 'coordination'),
            **extra)
        fixtures.db_manage(config, 'upgrade')
        done = upgrade_check(config)
        code, checks = results(config)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count('Result: Success') == len(CHECKS) - 1
    assert 'Result: Warning' in done.stdout
    # oslo.config says which of our names Watcher's stands for, when
    # read.
    assert ('Option "region_name" from group "nova_client" is deprecated'
            in done.stderr)
    assert code == 1
    result, details = checks['Unused options']
    assert result == 1
    for expected in (
            '[DEFAULT] bindir: Watcher\'s own install path',
            '[api] enable_ssl_api: the API serves plain HTTP',
            '[nova_client] api_version: watcher_ha always talks '
            'microversion 2.96',
            '[oslo_messaging_rabbit] use_queue_manger: not an option of '
            'watcher-ha',
            '[watcher_workflow_engines.taskflow] max_workers: set '
            '[watcher_applier] workers'):
        assert expected in details
    assert 'planner' not in details
    assert 'region_name' not in details
    assert 'lock_path' not in details
    assert 'collector_plugins' not in details


def test_an_unmigrated_database_and_an_older_nova_fail(tmp_path):
    older = dict(cloud.SMALL, max_microversions={'compute': '2.88'})
    with services.simulator(tmp_path / 'sim', older) as url:
        config = watcher_style_config(
            tmp_path, url, 'file://%s' % (tmp_path / 'coordination'))
        fixtures.db_manage(config, 'version')
        done = upgrade_check(config)
        code, checks = results(config)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.count('Result: Failure') == 2
    assert code == 2
    result, details = checks['Database']
    assert result == 2
    assert 'run "watcher-ha-db-manage upgrade" first' in details
    result, details = checks['Nova API']
    assert result == 2
    assert 'serves microversions 2.1 to 2.88; watcher_ha needs 2.96' \
        in details
    assert 'Nova 2024.1 (Caracal) and later' in details
    assert checks['Placement API'][0] == 0


def test_keystone_auth_needs_a_usable_keystone_authtoken(tmp_path):
    """auth_strategy = keystone (the default) with [keystone_authtoken]
    empty, or naming a user Keystone refuses: every /v1 call would fail
    with a 500, so the check fails and says what to set."""
    keystone = {'DEFAULT': {'auth_strategy': 'keystone'}}
    with services.simulator(tmp_path / 'sim', cloud.SMALL) as url:
        service_user = {
            'auth_type': 'password', 'auth_url': url + '/identity/v3',
            'www_authenticate_uri': url + '/identity/v3',
            'username': 'admin', 'password': 'admin',
            'project_name': 'admin', 'user_domain_name': 'Default',
            'project_domain_name': 'Default'}
        found = {}
        for case, section in (
                ('empty', {}),
                ('refused', dict(service_user, password='wrong')),
                ('usable', service_user)):
            config = watcher_style_config(
                tmp_path, url, 'file://%s' % (tmp_path / 'coordination'),
                keystone_authtoken=section, **keystone)
            fixtures.db_manage(config, 'upgrade')
            found[case] = results(config)
    code, checks = found['empty']
    assert code == 2
    result, details = checks['API authentication']
    assert result == 2
    for said in ('auth_strategy = keystone', '[keystone_authtoken]',
                 'auth_type', 'auth_url', 'username', 'password',
                 'www_authenticate_uri', 'auth_strategy = noauth'):
        assert said in details, details
    code, checks = found['refused']
    assert code == 2
    result, details = checks['API authentication']
    assert result == 2
    assert 'Keystone at %s/identity/v3' % url in details, details
    assert '401' in details or 'Unauthorized' in details, details
    code, checks = found['usable']
    assert checks['API authentication'] == (
        0, 'the API validates tokens with Keystone at %s/identity/v3 as '
           'admin' % url)
