"""devstack/: the plugin's phases run as devstack runs them, against a
stand-in of devstack's functions (devstack_standin.sh): the configuration
it writes, the database it migrates (the real watcher-ha-db-manage, on
MariaDB), the catalog entries and the daemons it asks for; and every file
of devstack/ passes shellcheck."""

import configparser
import getpass
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import uuid

import pytest
import requests
from keystoneauth1 import loading as ks_loading
from keystonemiddleware import auth_token
from oslo_config import cfg
from oslo_log import log

from tests import servers
from tests.functional import fixtures
from watcher_ha import conf as watcher_ha_conf

REPO = pathlib.Path(__file__).resolve().parents[2]
DEVSTACK = REPO / 'devstack'
STANDIN = pathlib.Path(__file__).with_name('devstack_standin.sh')
BIN = os.path.dirname(sys.executable)
DAEMONS = ('watcher-ha-api', 'watcher-ha-decision-engine',
           'watcher-ha-applier')

# What stack.sh does with a plugin: settings are sourced from a function
# early, then plugin.sh once per phase, all in one shell.
STACK = '''
set -o errexit -o pipefail
source "$STANDIN"
function load_plugin_settings { source devstack/settings; }
plugin_override_defaults() { source devstack/override-defaults; }
plugin_override_defaults
load_plugin_settings
for phase in $PHASES; do
    source devstack/plugin.sh stack "$phase"
done
echo "NOVA_NOTIFICATION_FORMAT=$NOVA_NOTIFICATION_FORMAT"
'''
# unstack.sh and clean.sh: settings, then the one mode.
ONE_MODE = '''
set -o errexit -o pipefail
source "$STANDIN"
source devstack/settings
source devstack/plugin.sh "$MODE"
'''
ALL_PHASES = 'install post-config extra test-config'


class Devstack:
    """One devstack node: its environment, and what the plugin did."""

    def __init__(self, tmp_path, enabled, **settings):
        self.tmp = tmp_path
        self.conf_dir = tmp_path / 'etc' / 'watcher-ha'
        self.state_path = tmp_path / 'data' / 'watcher-ha'
        self.log = tmp_path / 'calls.log'
        self.tempest_conf = tmp_path / 'tempest.conf'
        self.db_prefix = 'wha_devstack_%s_' % uuid.uuid4().hex[:10]
        self.port = fixtures.free_port()
        self.env = {
            'PATH': os.environ['PATH'],
            'HOME': str(tmp_path),
            # devstack's (stackrc, lib/*) as a node would have them.
            'DEST': str(tmp_path / 'opt'),
            'DATA_DIR': str(tmp_path / 'data'),
            'STACK_USER': getpass.getuser(),
            'ENABLED_SERVICES': ','.join(enabled),
            'SERVICE_HOST': '127.0.0.1',
            'SERVICE_LISTEN_ADDRESS': '127.0.0.1',
            'REGION_NAME': 'RegionOne',
            'ENABLE_DEBUG_LOG_LEVEL': 'True',
            'RABBIT_USERID': 'stackrabbit',
            'RABBIT_PASSWORD': 'secretrabbit',
            'RABBIT_HOST': '127.0.0.1',
            'ETCD_PORT': '2379',
            'KEYSTONE_SERVICE_URI': 'http://127.0.0.1/identity',
            'SERVICE_PASSWORD': 'secretservice',
            'SERVICE_DOMAIN_NAME': 'Default',
            'SERVICE_PROJECT_NAME': 'service',
            'MEMCACHE_SERVERS': '127.0.0.1:11211',
            'DATABASE_HOST': '%(host)s:%(port)d' % servers.MYSQL,
            'DATABASE_USER': servers.MYSQL['user'],
            'DATABASE_BACKENDS': 'mysql',
            'SERVICE_TIMEOUT': '60',
            'TEMPEST_CONFIG': str(self.tempest_conf),
            # The stand-in's.
            'STANDIN': str(STANDIN),
            'STANDIN_LOG': str(self.log),
            'STANDIN_DIR': str(tmp_path),
            'STANDIN_BIN_DIR': BIN,
            'STANDIN_DB_PREFIX': self.db_prefix,
            # local.conf's.
            'WATCHER_HA_CONF_DIR': str(self.conf_dir),
            'WATCHER_HA_API_PORT': str(self.port),
        }
        self.env.update(settings)

    @property
    def conf_file(self):
        return self.conf_dir / 'watcher-ha.conf'

    @property
    def api_url(self):
        return 'http://127.0.0.1:%d' % self.port

    def _bash(self, script, **env):
        return subprocess.run(
            ['bash', '-c', script], cwd=REPO, env=dict(self.env, **env),
            capture_output=True, text=True, timeout=300)

    def stack(self, phases=ALL_PHASES):
        done = self._bash(STACK, PHASES=phases)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def run_mode(self, mode):
        done = self._bash(ONE_MODE, MODE=mode)
        assert done.returncode == 0, done.stdout + done.stderr

    def calls(self, function=None):
        """The stand-in's recorded calls: [(function, arg, ...)]."""
        if not self.log.exists():
            return []
        found = [tuple(line.split('\t'))
                 for line in self.log.read_text().splitlines()]
        return [call[1:] for call in found
                if function is None or call[0] == function]

    def database(self):
        return self.db_prefix + 'watcher_ha'

    def drop_database(self):
        import pymysql
        conn = pymysql.connect(**servers.MYSQL, autocommit=True)
        with conn.cursor() as cur:
            cur.execute('DROP DATABASE IF EXISTS `%s`' % self.database())
        conn.close()


def _need_mariadb():
    if not servers.port_open((servers.MYSQL['host'], servers.MYSQL['port'])):
        servers.unavailable('mariadb', 'nothing listens on %(host)s:%(port)d'
                            % servers.MYSQL)


@pytest.fixture
def node(tmp_path):
    """A controller with what devstack enables by default and what the
    plugin uses: keystone, MariaDB, RabbitMQ, etcd, tempest, Prometheus."""
    _need_mariadb()
    made = []

    def make(enabled=('key', 'mysql', 'rabbit', 'etcd3', 'tempest',
                      'prometheus'), **settings):
        found = Devstack(tmp_path, enabled, **settings)
        made.append(found)
        return found
    yield make
    for found in made:
        found.run_mode('unstack')
        found.drop_database()


def _ini(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path)
    return parser


def _oslo_config(path):
    """The file as the daemons read it, every option in it registered: by
    watcher_ha, oslo.log, keystonemiddleware, or the keystoneauth plugin
    its auth_type names."""
    conf = cfg.ConfigOpts()
    watcher_ha_conf.register_opts(conf)
    log.register_options(conf)
    # keystonemiddleware's options, its auth_type among them.
    for group, opts in auth_token.list_opts():
        conf.register_opts(opts, group=group)
    conf(['--config-file', str(path)], project='watcher-ha',
         default_config_files=[])
    written = _ini(path)
    plugins = {group: ks_loading.load_auth_from_conf_options(conf, group)
               for group in ('keystone_authtoken', 'nova', 'placement',
                             'ironic', 'cinder')
               if written.has_section(group)}
    for section in written.sections():
        for option in written.options(section):
            if option not in written.defaults():
                assert option in conf[section], (
                    '[%s] %s is no option of ours' % (section, option))
    for option in written.defaults():
        assert option in conf, '[DEFAULT] %s is no option of ours' % option
    return conf, plugins


def test_stack_configures_migrates_registers_and_starts(node, tmp_path):
    # devstack always installs uwsgi; the command only needs its path.
    tools = tmp_path / 'bin'
    tools.mkdir()
    uwsgi_program = tools / 'uwsgi'
    uwsgi_program.write_text('#!/bin/sh\nexit 0\n')
    uwsgi_program.chmod(0o755)
    devstack = node(PATH='%s:%s' % (tools, os.environ['PATH']))
    out = devstack.stack()

    # Nova is told to send its versioned notifications too.
    assert 'NOVA_NOTIFICATION_FORMAT=both' in out
    # install: the project, and the etcd client tooz needs for etcd3.
    assert devstack.calls('setup_develop') == [(str(REPO),)]
    assert devstack.calls('pip_install') == [('etcd3gw',)]

    conf, plugins = _oslo_config(devstack.conf_file)
    database_url = ('mysql+pymysql://root@%(host)s:%(port)d/' % servers.MYSQL
                    + devstack.database() + '?charset=utf8mb4')
    assert conf.database.connection == database_url
    assert conf.transport_url == (
        'rabbit://stackrabbit:secretrabbit@127.0.0.1:5672/')
    assert conf.auth_strategy == 'keystone'
    assert conf.state_path == str(devstack.state_path)
    assert conf.coordination.backend_url == (
        'etcd3+http://127.0.0.1:2379?api_version=v3')
    assert (conf.api.host, conf.api.port) == ('127.0.0.1', devstack.port)
    assert conf.watcher_datasources.datasources == ['prometheus']
    assert (conf.prometheus_client.host,
            conf.prometheus_client.port) == ('127.0.0.1', 9090)
    assert conf.keystone_authtoken.www_authenticate_uri == (
        'http://127.0.0.1/identity')
    assert conf.keystone_authtoken.memcached_servers == ['127.0.0.1:11211']
    # The service user, to keystone and to Nova and Placement.
    for group, plugin in plugins.items():
        assert type(plugin).__name__ == 'Password', group
        assert plugin.auth_url == 'http://127.0.0.1/identity'
        assert plugin._username == 'watcher-ha'
        assert plugin._password == 'secretservice'
        assert plugin._project_name == 'service'
    for group in ('nova', 'placement'):
        assert conf[group].region_name == 'RegionOne'
    # No Cinder on this node: no storage model.
    assert conf.watcher_decision_engine.collectors == ['compute']
    assert not _ini(devstack.conf_file).has_section('cinder')
    assert devstack.calls('setup_logging') == [(str(devstack.conf_file),)]

    # The database was created and migrated to head.
    assert devstack.calls('recreate_database') == [('watcher_ha',)]
    version = fixtures.db_manage(devstack.conf_file, 'version').stdout
    # (debug = True: oslo.log's lines come first.)
    revisions = dict(line.split(': ', 1) for line in version.splitlines()
                     if line.startswith(('current: ', 'head: ')))
    assert revisions['current'] == revisions['head'], version

    # The service user and the two catalog entries.
    assert devstack.calls('create_service_user') == [('watcher-ha', 'admin')]
    assert [call[1] for call in devstack.calls('get_or_create_service')] == [
        'infra-optim', 'instance-ha']
    api = devstack.api_url
    instance_ha = api + '/instance-ha/v1/%(project_id)s'
    assert devstack.calls('get_or_create_endpoint') == [
        ('service-infra-optim', 'RegionOne', api, api, api),
        ('service-instance-ha', 'RegionOne', instance_ha, instance_ha,
         instance_ha)]

    # The API under uwsgi on its port, reading our file; the daemons.
    uwsgi_conf = devstack.conf_dir / 'watcher-ha-api-uwsgi.ini'
    uwsgi = _ini(uwsgi_conf)['uwsgi']
    assert uwsgi['module'] == 'watcher_ha.api.wsgi:application'
    assert uwsgi['http'] == '127.0.0.1:%d' % devstack.port
    assert uwsgi['env'] == 'WATCHER_HA_CONFIG_FILE=%s' % devstack.conf_file
    config = '--config-file %s' % devstack.conf_file
    started = dict(devstack.calls('run_process'))
    assert started == {
        'watcher-ha-api': '%s --procname-prefix watcher-ha-api --ini %s' % (
            uwsgi_program, uwsgi_conf),
        'watcher-ha-decision-engine':
            '%s/watcher-ha-decision-engine %s' % (BIN, config),
        'watcher-ha-applier': '%s/watcher-ha-applier %s' % (BIN, config)}
    for command in started.values():
        assert os.access(command.split()[0], os.X_OK), command
    assert devstack.calls('wait_for_service') == [(api,)]

    # test-config: watcher-tempest-plugin's options.
    tempest = _ini(devstack.tempest_conf)
    assert tempest['service_available']['watcher'] == 'True'
    assert dict(tempest['optimize']) == {'min_microversion': '1.0',
                                         'max_microversion': '1.7'}

    # unstack stops every daemon; clean removes the local state.
    devstack.run_mode('unstack')
    assert [call[0] for call in devstack.calls('stop_process')] == list(
        DAEMONS)
    assert devstack.state_path.is_dir()
    devstack.run_mode('clean')
    assert not devstack.state_path.exists()
    assert not uwsgi_conf.exists()


def test_console_api_serves_the_endpoints_it_registered(node):
    """Without uwsgi the API runs as its console script; with the
    generated file it answers on both catalog endpoints. Only the enabled
    daemons start."""
    devstack = node(('key', 'mysql', 'rabbit'),
                    WATCHER_HA_USE_UWSGI='False', STANDIN_START='1',
                    RABBIT_USERID='guest', RABBIT_PASSWORD='guest',
                    DISABLED_SERVICES='watcher-ha-decision-engine,'
                                      'watcher-ha-applier')
    devstack.stack()
    assert [call[0] for call in devstack.calls('run_process')] == [
        'watcher-ha-api']
    assert devstack.calls('run_process')[0][1] == (
        '%s/watcher-ha-api --config-file %s' % (BIN, devstack.conf_file))
    assert not (devstack.conf_dir / 'watcher-ha-api-uwsgi.ini').exists()
    # No etcd3 and no Prometheus on this node.
    conf, _ = _oslo_config(devstack.conf_file)
    assert conf.coordination.backend_url == 'file://%s/coordination' % (
        devstack.state_path)
    assert 'prometheus_client' not in _ini(devstack.conf_file)

    endpoints = {call[0]: call[2]
                 for call in devstack.calls('get_or_create_endpoint')}
    versions = requests.get(endpoints['service-infra-optim'], timeout=10)
    assert versions.status_code == 200, versions.text
    assert versions.json()['versions'][0]['id'] == 'v1'
    # openstacksdk reads the version document under the endpoint's
    # project-less part before its first call.
    instance_ha = endpoints['service-instance-ha'].rsplit('/', 1)[0]
    document = requests.get(instance_ha, timeout=10)
    assert document.status_code == 200, document.text
    assert json.dumps(document.json())

    pid = int((devstack.tmp / 'watcher-ha-api.pid').read_text())
    devstack.run_mode('unstack')
    fixtures.wait_for(lambda: not _alive(pid), timeout=30,
                      what='watcher-ha-api stopped')


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie until its parent (bash, gone) is reaped by init.
    status = pathlib.Path('/proc/%d/status' % pid)
    return status.exists() and 'zombie' not in status.read_text()


def test_with_cinder_the_storage_model_is_on(node):
    """devstack's Cinder services (c-api, c-vol, c-sch: lib/cinder's
    is_cinder_enabled): the service user's credentials in [cinder] and the
    storage collector on."""
    devstack = node(('key', 'mysql', 'rabbit', 'c-api', 'c-vol', 'c-sch'))
    devstack.stack('post-config')
    conf, plugins = _oslo_config(devstack.conf_file)
    assert conf.watcher_decision_engine.collectors == ['compute', 'storage']
    plugin = plugins['cinder']
    assert type(plugin).__name__ == 'Password'
    assert (plugin._username, plugin._project_name) == ('watcher-ha',
                                                        'service')
    assert conf.cinder.region_name == 'RegionOne'


def test_masakari_keeps_the_instance_ha_service(node):
    devstack = node(('key', 'mysql', 'masakari-api'))
    devstack.stack('post-config')
    assert [call[1] for call in devstack.calls('get_or_create_service')] == [
        'infra-optim']


def test_standin_iniset_edits_in_place(tmp_path):
    """The stand-in's iniset/iniget behave as devstack's: replace in its
    section, add sections, keep values verbatim."""
    ini = tmp_path / 'a.ini'
    script = '''
source "$STANDIN"
iniset "$INI" DEFAULT debug True
iniset "$INI" nova auth_url http://x/identity
iniset "$INI" DEFAULT debug False
iniset "$INI" placement auth_url 'http://y/a?b=1&c=%(d)s\\e'
iniset "$INI" nova username watcher-ha
echo "$(iniget "$INI" DEFAULT debug)|$(iniget "$INI" placement auth_url)"
'''
    done = subprocess.run(['bash', '-c', script], capture_output=True,
                          text=True, timeout=30,
                          env=dict(os.environ, STANDIN=str(STANDIN),
                                   INI=str(ini)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'False|http://y/a?b=1&c=%(d)s\\e'
    parser = _ini(ini)
    assert dict(parser['DEFAULT']) == {'debug': 'False'}
    assert dict(parser['nova']) == {'debug': 'False',
                                    'auth_url': 'http://x/identity',
                                    'username': 'watcher-ha'}
    assert ini.read_text().count('debug') == 1


def test_every_devstack_file_passes_shellcheck():
    shellcheck = shutil.which('shellcheck')
    if shellcheck is None:
        servers.unavailable('shellcheck', 'not on PATH')
    scripts = sorted(str(path.relative_to(REPO))
                     for path in DEVSTACK.rglob('*')
                     if path.is_file() and path.suffix != '.rst')
    assert 'devstack/plugin.sh' in scripts and 'devstack/settings' in scripts
    done = subprocess.run([shellcheck, '--shell=bash', '--external-sources',
                           *scripts, str(STANDIN.relative_to(REPO))],
                          cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


# Hosts that name no real server (RFC 2606, RFC 6761): a placeholder.
PLACEHOLDER_HOST = re.compile(
    r'://([^/]*\.)?(example(\.(com|net|org))?|invalid|test|localhost)'
    r'(:\d+)?/', re.IGNORECASE)


def test_the_docs_enable_the_plugin_from_a_real_repository():
    """What the operator pastes into local.conf names a repository git
    can clone (the project records no public URL: a checkout's file://
    URL), not a placeholder host, and the same in both documents."""
    lines = []
    for doc in (DEVSTACK / 'README.rst',
                REPO / 'doc' / 'source' / 'devstack.rst'):
        found = re.findall(r'^\s*enable_plugin (\S+) (\S+)(?: (\S+))?$',
                           doc.read_text(), re.MULTILINE)
        assert found, doc
        lines += [(doc.name,) + line for line in found]
    for name, plugin, url, _ in lines:
        assert plugin == 'watcher-ha', (name, plugin)
        assert not PLACEHOLDER_HOST.search(url), (name, url)
    assert len({line[1:] for line in lines}) == 1, lines
