"""watcher-ha-status upgrade check, one check at a time, each on a
private configuration: the database's schema, Nova's and Placement's
microversions (the simulator, in this process, playing older releases
too), the coordination backend, and the options nobody reads."""

import contextlib
import socket

import pytest
import sqlalchemy as sa
from oslo_upgradecheck import upgradecheck

from tests import private_conf
from tests import served
from watcher_ha.cmd import status
from watcher_ha.db import migration
from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator

Code = upgradecheck.Code


def make_conf(tmp_path, text=''):
    path = tmp_path / 'watcher-ha.conf'
    path.write_text('[DEFAULT]\nstate_path = %s\n%s' % (tmp_path, text))
    return private_conf.private_conf(['--config-file', str(path)])


def closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


# Database.

def sqlite_conf(tmp_path, migrate):
    url = 'sqlite:///%s/watcher_ha.sqlite' % tmp_path
    if migrate is not None:
        bind = sa.create_engine(url)
        with bind.begin() as connection:
            connection.exec_driver_sql('CREATE TABLE kept (id INTEGER)')
        if migrate:
            migration.upgrade(bind=bind)
        bind.dispose()
    return make_conf(tmp_path, '[database]\nconnection = %s\n' % url)


def test_a_migrated_database_passes(tmp_path):
    result = status.check_database(sqlite_conf(tmp_path, migrate=True))
    assert result.code == Code.SUCCESS, result.details
    assert migration.head() in result.details


def test_an_unmigrated_database_fails_saying_what_to_run(tmp_path):
    result = status.check_database(sqlite_conf(tmp_path, migrate=False))
    assert result.code == Code.FAILURE
    assert 'has no watcher-ha schema' in result.details
    assert 'watcher-ha-db-manage upgrade' in result.details


def test_a_missing_sqlite_file_fails_and_is_not_created(tmp_path):
    result = status.check_database(sqlite_conf(tmp_path, migrate=None))
    assert result.code == Code.FAILURE
    assert 'watcher-ha-db-manage upgrade' in result.details
    assert not (tmp_path / 'watcher_ha.sqlite').exists()


def test_an_older_schema_fails(tmp_path):
    conf = sqlite_conf(tmp_path, migrate=True)
    bind = sa.create_engine(conf.database.connection)
    migration.downgrade('-1', bind=bind)
    older = migration.version(bind)
    bind.dispose()
    result = status.check_database(conf)
    assert result.code == Code.FAILURE
    assert 'at schema revision %s' % older in result.details
    assert 'watcher-ha-db-manage upgrade' in result.details


def test_a_schema_from_a_newer_release_warns(tmp_path):
    conf = sqlite_conf(tmp_path, migrate=True)
    bind = sa.create_engine(conf.database.connection)
    with bind.begin() as connection:
        connection.exec_driver_sql(
            "UPDATE alembic_version SET version_num = 'f00dfeedbeef'")
    bind.dispose()
    result = status.check_database(conf)
    assert result.code == Code.WARNING
    assert 'newer release' in result.details


def test_an_unreachable_database_fails(tmp_path):
    conf = make_conf(tmp_path, '[database]\nconnection = mysql+pymysql://'
                     'watcher:secret@127.0.0.1:%d/watcher\n' % closed_port())
    result = status.check_database(conf)
    assert result.code == Code.FAILURE
    assert 'cannot reach the database' in result.details
    assert 'secret' not in result.details


# Nova and Placement, against the simulator.

@contextlib.contextmanager
def serving(spec):
    """The simulator of ``spec`` on a loopback port: its URL."""
    sim = simulator.Simulator(spec)
    try:
        with served.app_serving(sim) as url:
            yield url
    finally:
        sim.stop()


def cloud_conf(tmp_path, url, password_auth=False):
    if password_auth:
        # Through Keystone's catalog, as a real deployment: with Watcher's
        # shared credentials section, which [nova] and [placement] fall
        # back on.
        return make_conf(tmp_path, """
[watcher_clients_auth]
auth_type = password
auth_url = {url}/identity/v3
username = admin
password = admin
project_name = admin
user_domain_name = Default
project_domain_name = Default
""".format(url=url))
    return make_conf(tmp_path, """
[nova]
auth_type = none
endpoint_override = {url}/compute/v2.1
[placement]
auth_type = none
endpoint_override = {url}/placement
""".format(url=url))


def check_nova(conf):
    return status.check_api(conf, 'nova', 'Nova', '2.96',
                            '2024.1 (Caracal)')


def check_placement(conf):
    return status.check_api(conf, 'placement', 'Placement', '1.6')


@pytest.fixture(scope='module')
def spec():
    return scenario.generate(hosts=2, servers=0, seed=1)


@pytest.mark.parametrize('password_auth', [False, True])
def test_a_recent_cloud_passes(tmp_path, spec, password_auth):
    with serving(spec) as url:
        conf = cloud_conf(tmp_path, url, password_auth)
        nova, placement = check_nova(conf), check_placement(conf)
    assert nova.code == Code.SUCCESS, nova.details
    assert 'microversions 2.1 to 2.96' in nova.details
    assert placement.code == Code.SUCCESS, placement.details
    assert 'microversions 1.0 to 1.39' in placement.details


def test_an_older_nova_fails_naming_the_release_needed(tmp_path, spec):
    older = dict(spec, max_microversions={'compute': '2.88'})
    with serving(older) as url:
        result = check_nova(cloud_conf(tmp_path, url))
    assert result.code == Code.FAILURE
    assert 'microversions 2.1 to 2.88' in result.details
    assert 'needs 2.96' in result.details
    assert 'Nova 2024.1 (Caracal) and later' in result.details


def test_an_older_placement_fails(tmp_path, spec):
    older = dict(spec, max_microversions={'placement': '1.5'})
    with serving(older) as url:
        result = check_placement(cloud_conf(tmp_path, url))
    assert result.code == Code.FAILURE
    assert 'microversions 1.0 to 1.5; watcher_ha needs 1.6' in result.details


def test_nova_without_credentials_fails(tmp_path):
    result = check_nova(make_conf(tmp_path))
    assert result.code == Code.FAILURE
    assert '[nova] auth_type is not set' in result.details


def test_an_unreachable_nova_fails(tmp_path):
    conf = cloud_conf(tmp_path, 'http://127.0.0.1:%d' % closed_port())
    result = check_nova(conf)
    assert result.code == Code.FAILURE
    assert 'cannot reach Nova' in result.details


# Coordination.

def test_a_file_backend_passes(tmp_path):
    conf = make_conf(tmp_path, '[coordination]\nbackend_url = file://%s\n'
                     % (tmp_path / 'coordination'))
    result = status.check_coordination(conf)
    assert result.code == Code.SUCCESS, result.details


def test_a_file_backend_that_cannot_be_written_fails(tmp_path):
    (tmp_path / 'a-file').write_text('')
    conf = make_conf(tmp_path, '[coordination]\nbackend_url = file://%s\n'
                     % (tmp_path / 'a-file' / 'coordination'))
    result = status.check_coordination(conf)
    assert result.code == Code.FAILURE
    assert 'cannot reach the coordination backend' in result.details


def test_a_redis_that_does_not_answer_fails_without_its_password(tmp_path):
    conf = make_conf(tmp_path, '[coordination]\nbackend_url = '
                     'redis://:secret@127.0.0.1:%d\n' % closed_port())
    result = status.check_coordination(conf, timeout=0.5)
    assert result.code == Code.FAILURE
    assert 'did not answer within 0.5 s' in result.details
    assert 'redis://:***@127.0.0.1' in result.details
    assert 'secret' not in result.details


# Options set that nothing reads.

def test_options_all_read_pass(tmp_path):
    conf = make_conf(tmp_path, '[api]\nport = 9322\n[watcher_planner]\n'
                     'planner = weight\n[keystone_authtoken]\n'
                     'auth_type = password\nauth_url = http://k/v3\n')
    result = status.check_unused_options(conf)
    assert result.code == Code.SUCCESS, result.details


def test_watchers_ignored_options_and_unknown_ones_warn(tmp_path):
    conf = make_conf(tmp_path, """
[DEFAULT]
bindir = /usr/bin
periodic_interval = 30
[api]
enable_ssl_api = true
[keystone_client]
interface = public
region_name = RegionOne
[watcher_strategies.basic]
datasources = gnocchi
[api]
prot = 9322
[no_such_group]
x = 1
""")
    result = status.check_unused_options(conf)
    assert result.code == Code.WARNING
    details = result.details
    assert '[DEFAULT] bindir: Watcher\'s own install path' in details
    assert '[DEFAULT] periodic_interval: each periodic task' in details
    assert '[api] enable_ssl_api: the API serves plain HTTP' in details
    # A group of Watcher's that means nothing here: one item.
    assert ('[keystone_client] interface, region_name: watcher_ha does not '
            'call') in details
    assert ('[watcher_strategies.basic] datasources: every strategy uses '
            '[watcher_datasources] datasources') in details
    assert '[api] prot: not an option of watcher-ha' in details
    assert '[no_such_group] x: not an option of watcher-ha' in details


def test_an_option_of_ours_that_is_gone_says_what_replaced_it(tmp_path):
    conf = make_conf(tmp_path, '[instance_ha]\nrecovery_poll_interval = 5\n')
    result = status.check_unused_options(conf)
    assert result.code == Code.WARNING
    assert ('[instance_ha] recovery_poll_interval: removed: the end of a '
            'recovery\'s plan reaches the engine') in result.details


def test_no_configuration_file_warns(tmp_path):
    result = status.check_unused_options(private_conf.private_conf())
    assert result.code == Code.WARNING
    assert 'no configuration file' in result.details
