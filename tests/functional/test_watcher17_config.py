"""A Watcher 17 configuration file, as an operator migrating from Watcher
has it, runs our daemons: the sample that python-watcher 17.0.0's own
oslo-config-generator writes (its venv, its namespaces), with every option
that shows a value uncommented at that value, then the credentials and
endpoints set. With that file alone the database is migrated, the API,
decision engine and applier start and serve (a dummy audit runs and its
plan applies), and ``watcher-ha-status upgrade check`` warns about the
options of Watcher's the file sets that mean nothing here.

The virtualenv with python-watcher 17.0.0 is made on first use (a few
minutes; tests/benchmarks/watcher17.py) and reused after.
"""

import contextlib
import json
import os
import re
import subprocess

import pytest
import requests
from keystoneauth1 import loading as ks_loading

from tests import venvs
from tests.benchmarks import watcher17
from tests.functional import cloud
from tests.functional import fixtures
from tests.functional import services
from tests.functional.daemons import cli
from tests.functional.fixtures import wait_for
from tools import children
from watcher_ha.conf import watcher_ignored

# Watcher 17's etc/watcher/oslo-config-generator/watcher.conf: what its
# sample file is made of.
WATCHER_NAMESPACES = (
    'watcher', 'keystonemiddleware.auth_token', 'oslo.cache',
    'oslo.concurrency', 'oslo.db', 'oslo.log', 'oslo.messaging',
    'oslo.middleware.cors', 'oslo.middleware.http_proxy_to_wsgi',
    'oslo.policy', 'oslo.reports', 'oslo.service.periodic_task',
    'oslo.service.service', 'oslo.service.wsgi')
OUR_GENERATOR_CONF = os.path.join(
    os.path.dirname(__file__), '..', '..', 'etc', 'watcher-ha',
    'config-generator.conf')

# "#name = value": an option the sample shows commented out, at its
# default. Help text lines start with "# ".
SAMPLE_OPTION = re.compile(r'^#([A-Za-z0-9_.-]+) = (.*)$')
SECTION = re.compile(r'^\[([^\]]+)\]$')
DEPRECATED_NAME = re.compile(r'^# Deprecated group/name - \[([^\]]+)\]/(\S+)$')


def _watcher_python():
    return venvs.required(watcher17.python(), 'python-watcher 17.0.0')


def _generate(generator, namespaces, path):
    done = subprocess.run(
        [str(generator), '--wrap-width', '79', '--output-file', str(path)]
        + [arg for ns in namespaces for arg in ('--namespace', ns)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return path.read_text()


def watcher_sample(tmp_path):
    """The text of Watcher 17's sample configuration file, made by its
    own generator in its own virtualenv."""
    python = _watcher_python()
    return _generate(python.parent / 'oslo-config-generator',
                     WATCHER_NAMESPACES, tmp_path / 'watcher.conf.sample')


def filled_in(sample, settings):
    """``sample`` as an operator fills it in: every option the sample
    shows a value for uncommented at that value, then ``settings``
    ({section: {name: value}}) set, replacing the sample's line or added
    to the section (a section added at the end when the sample has none).

    A value in angle brackets (<None>, <HOSTNAME>) is the generator's
    placeholder, not a value: that option stays commented, as does one
    shown with no value at all."""
    remaining = {section: dict(options)
                 for section, options in settings.items()}
    lines, section = [], None

    def close(section):
        for name, value in remaining.pop(section, {}).items():
            lines.append('%s = %s' % (name, value))

    for line in sample.splitlines():
        header = SECTION.match(line)
        if header:
            close(section)
            section = header.group(1)
            lines.append(line)
            continue
        option = SAMPLE_OPTION.match(line)
        if option:
            name, value = option.groups()
            wanted = remaining.get(section, {})
            if name in wanted:
                line = '%s = %s' % (name, wanted.pop(name))
            elif not (value.startswith('<') and value.endswith('>')):
                line = '%s = %s' % (name, value)
        lines.append(line)
    close(section)
    for extra in list(remaining):
        lines.append('')
        lines.append('[%s]' % extra)
        close(extra)
    return '\n'.join(lines) + '\n'


def set_in(text):
    """{(group, name)} of what the configuration ``text`` sets."""
    found, section = set(), None
    for line in text.splitlines():
        header = SECTION.match(line)
        if header:
            section = header.group(1)
        elif line and not line.startswith('#') and '=' in line:
            found.add((section, line.split('=', 1)[0].strip()))
    return found


def our_options(tmp_path):
    """{(group, name)} that watcher_ha reads, from the sample of our own
    generator: each option's name and the deprecated names (Watcher's)
    it lists, plus the password plugin's options where we load it."""
    generator = os.path.join(fixtures.BIN, 'oslo-config-generator')
    sample = subprocess.run(
        [generator, '--config-file', OUR_GENERATOR_CONF, '--output-file',
         str(tmp_path / 'ours.conf.sample')], capture_output=True,
        text=True, timeout=120)
    assert sample.returncode == 0, sample.stderr[-3000:]
    ours, section = set(), None
    for line in (tmp_path / 'ours.conf.sample').read_text().splitlines():
        header = SECTION.match(line)
        option = SAMPLE_OPTION.match(line)
        deprecated = DEPRECATED_NAME.match(line)
        if header:
            section = header.group(1)
        elif option:
            ours.add((section, option.group(1)))
        elif deprecated:
            ours.add(deprecated.groups())
    password = {opt.dest for opt in
                ks_loading.get_auth_plugin_conf_options('password')}
    ours |= {('watcher_clients_auth', name) for name in password}
    return ours


def named_in(details, group, name):
    """Whether the upgrade check's details name ``[group] name``: they
    list '[group] name, other: why' items."""
    return re.search(r'\[%s\] ([\w.-]+, )*%s[,:]' % (
        re.escape(group), re.escape(name)), details) is not None


@contextlib.contextmanager
def daemon(command, config, tmp_path):
    """``watcher-ha-<command>`` with ``config`` and no other file."""
    out = tmp_path / ('%s.out' % command)
    with open(out, 'w') as log:
        proc = children.popen(
            [os.path.join(fixtures.BIN, 'watcher-ha-' + command),
             '--config-file', str(config)], stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield proc, out
    finally:
        fixtures.stop(proc)


def _alive(proc, out):
    if proc.poll() is not None:
        raise AssertionError('%s exited %s:\n%s' % (
            proc.args[0], proc.returncode, out.read_text()[-5000:]))


@pytest.fixture
def deployment(tmp_path, own_rabbit):
    """A filled-in Watcher 17 file on MariaDB, a RabbitMQ vhost and the
    simulator: (path, API URL)."""
    sample = watcher_sample(tmp_path)
    port = fixtures.free_port()
    with contextlib.ExitStack() as cleanup:
        database, drop = services.create_database('mysql')
        cleanup.callback(drop)
        with services.simulator(tmp_path / 'sim', cloud.SMALL) as sim:
            settings = {
                'DEFAULT': {
                    'transport_url': own_rabbit,
                    'state_path': str(tmp_path),
                    # Ours: the simulator's Keystone checks tokens
                    # without roles, so the API runs without it.
                    'auth_strategy': 'noauth'},
                'api': {'host': '127.0.0.1', 'port': port},
                'database': {'connection': database},
                'oslo_concurrency': {'lock_path': str(tmp_path / 'locks')},
                'watcher_clients_auth': {
                    'auth_type': 'password',
                    'auth_url': sim + '/identity/v3',
                    'username': 'admin', 'password': 'admin',
                    'project_name': 'admin',
                    'user_domain_name': 'Default',
                    'project_domain_name': 'Default'},
                'coordination': {
                    'backend_url': 'file://%s' % (tmp_path / 'coord')},
            }
            config = tmp_path / 'watcher.conf'
            config.write_text(filled_in(sample, settings))
            yield config, 'http://127.0.0.1:%d' % port


def _services(api):
    """(name, status) of the services the API lists; none while it
    answers with an error (the daemons are still starting: the caller
    waits, and its bound says what never came)."""
    reply = requests.get(api + '/v1/services', timeout=10)
    if reply.status_code != 200:
        return set()
    return {(s['name'], s['status']) for s in reply.json()['services']}


def _state(api, kind, uuid):
    return requests.get('%s/v1/%s/%s' % (api, kind, uuid),
                        timeout=10).json()['state']


def test_a_watcher17_file_runs_our_daemons(deployment, tmp_path):
    config, api = deployment
    text = config.read_text()
    # The operator's file: most of Watcher's options uncommented.
    assert len(set_in(text)) > 250

    fixtures.db_manage(config, 'upgrade')
    with daemon('api', config, tmp_path) as (api_proc, api_out), \
            daemon('decision-engine', config, tmp_path) as engine, \
            daemon('applier', config, tmp_path) as applier:
        fixtures.wait_answering(api_proc, api + '/', api_out, 60,
                                'watcher-ha-api')

        def up():
            for proc in (engine, applier):
                _alive(*proc)
            return ({('watcher-ha-decision-engine', 'ACTIVE'),
                     ('watcher-ha-applier', 'ACTIVE')} <= _services(api)
                    and 'dummy' in {g['Name'] for g in
                                    cli(api, 'goal', 'list')})
        wait_for(up, 60, 'engine and applier ACTIVE, catalog loaded', 0.5)

        audit = cli(api, 'audit', 'create', '-g', 'dummy', '-s', 'dummy',
                    '-t', 'ONESHOT', '-p', 'para1=1')['UUID']
        wait_for(lambda: _alive(*engine) or _state(api, 'audits', audit)
                 in ('SUCCEEDED', 'FAILED'), 30, 'audit done', 0.3)
        assert _state(api, 'audits', audit) == 'SUCCEEDED'
        [plan] = cli(api, 'actionplan', 'list', '--audit', audit)
        cli(api, 'actionplan', 'start', plan['UUID'])
        wait_for(lambda: _alive(*applier) or _state(
            api, 'action_plans', plan['UUID']) in ('SUCCEEDED', 'FAILED'),
            30, 'plan done', 0.3)
        assert _state(api, 'action_plans', plan['UUID']) == 'SUCCEEDED'

    check = subprocess.run(
        [os.path.join(fixtures.BIN, 'watcher-ha-status'), '--config-file',
         str(config), 'upgrade', 'check', '--json'], capture_output=True,
        text=True, timeout=120)
    assert check.returncode == 1, check.stdout + check.stderr
    checks = {c['check']: c for c in json.loads(check.stdout)['checks']}
    assert checks['Unused options']['result'] == 1
    details = checks['Unused options']['details']
    assert [name for name, c in checks.items() if c['result']] == [
        'Unused options'], check.stdout
    written = set_in(text)
    ignored = {(group, name) for group, name in written
               if watcher_ignored.why_ignored(group, name)}
    assert len(ignored) > 30
    assert {o for o in ignored if not named_in(details, *o)} == set()
    ours = written & our_options(tmp_path)
    assert len(ours) > 100
    assert {o for o in ours if named_in(details, *o)} == set()
