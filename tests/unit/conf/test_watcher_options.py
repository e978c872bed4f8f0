"""A Watcher 17 configuration file is read as it is: each of Watcher's
options is ours under the same group and name, accepted under Watcher's
name as a deprecated alias of ours, or listed as ignored (with why) in
watcher_ha/conf/watcher_ignored.py.

Watcher's list is tests/data/watcher17_options.json, written by
tools/watcher17_options.py from python-watcher 17.0.0 (see that script
to regenerate it for another release).
"""

import fnmatch
import json
import pathlib

import pytest

from tests import private_conf
from watcher_ha.cloud import clients
from watcher_ha.conf import unused
from watcher_ha.conf import watcher_ignored

ROOT = pathlib.Path(__file__).resolve().parents[3]
WATCHER = json.loads(
    (ROOT / 'tests/data/watcher17_options.json').read_text())
WATCHER_OPTIONS = [(o['group'], o['name']) for o in WATCHER['options']]


def test_the_data_file_is_watcher_17():
    assert WATCHER['watcher_version'] == '17.0.0'
    # Watcher 17's sample documents 216 options of its own.
    assert len(set(WATCHER_OPTIONS)) == 216


def test_every_watcher_option_is_ours_aliased_or_ignored():
    known = unused.known_options()
    neither = [option for option in WATCHER_OPTIONS
               if option not in known
               and watcher_ignored.why_ignored(*option) is None]
    assert neither == []


def test_no_option_we_read_is_listed_as_ignored():
    known = unused.known_options()
    assert [option for option in WATCHER_OPTIONS
            if option in known
            and watcher_ignored.why_ignored(*option) is not None] == []


def test_every_ignored_entry_ignores_some_watcher_option():
    for entry in watcher_ignored.IGNORED:
        assert any(fnmatch.fnmatchcase(group, entry.group)
                   and fnmatch.fnmatchcase(name, entry.name)
                   for group, name in WATCHER_OPTIONS), entry


def test_the_namespaces_read_are_those_of_the_sample():
    # oslo-config-generator's file repeats the key, which configparser
    # cannot read.
    text = (ROOT / 'etc/watcher-ha/config-generator.conf').read_text()
    listed = [line.split('=', 1)[1].strip() for line in text.splitlines()
              if line.replace(' ', '').startswith('namespace=')]
    assert sorted(listed) == sorted(unused.NAMESPACES)


def _conf(tmp_path, text):
    path = tmp_path / 'watcher.conf'
    path.write_text(text)
    return private_conf.private_conf(['--config-file', str(path)])


WATCHER_NAMES = """
[watcher_planner]
planner = workload_stabilization
[watcher_decision_engine]
continuous_audit_interval = 7
[nova_client]
region_name = RegionTwo
[placement_client]
region_name = RegionThree
interface = internal
[ironic_client]
region_name = RegionFour
"""


def test_watchers_names_set_ours(tmp_path):
    conf = _conf(tmp_path, WATCHER_NAMES)
    engine = conf.watcher_decision_engine
    assert engine.planner == 'workload_stabilization'
    assert engine.continuous_audit_check_interval == 7.0
    assert conf.nova.region_name == 'RegionTwo'
    assert conf.placement.region_name == 'RegionThree'
    assert conf.placement.valid_interfaces == ['internal']
    assert conf.ironic.region_name == 'RegionFour'
    # Read, so not reported by the upgrade check.
    assert unused.unused_options(conf) == []


def test_watchers_collector_plugins_sets_our_collectors(tmp_path):
    """Watcher's [collector] collector_plugins is our [watcher_decision_engine]
    collectors: both name the cluster data models the engine keeps."""
    conf = _conf(tmp_path, '[collector]\ncollector_plugins = compute, '
                           'storage\n')
    assert conf.watcher_decision_engine.collectors == ['compute', 'storage']
    assert watcher_ignored.why_ignored('collector',
                                       'collector_plugins') is None
    assert unused.unused_options(conf) == []


def test_oslo_concurrency_options_are_read(tmp_path):
    """oslo.concurrency's lock_path is where oslo.messaging's RabbitMQ
    driver keeps the lock of ``[oslo_messaging_rabbit] use_queue_manager``
    (test_config.py shows it taken there): an option we read."""
    conf = _conf(tmp_path, '[oslo_concurrency]\nlock_path = %s\n'
                           'disable_process_locking = false\n' % tmp_path)
    assert unused.unused_options(conf) == []


@pytest.mark.parametrize('own', [False, True])
def test_watcher_clients_auth_serves_groups_without_credentials(tmp_path,
                                                                own):
    text = """
[watcher_clients_auth]
auth_type = password
auth_url = http://keystone.example/v3
username = watcher
password = secret
"""
    if own:
        text += '[nova]\nauth_type = none\n'
    conf = _conf(tmp_path, text)
    expected = 'nova' if own else 'watcher_clients_auth'
    assert clients.auth_group(conf, 'nova') == expected
    assert clients.auth_group(conf, 'placement') == 'watcher_clients_auth'
    assert clients.configured(conf, 'placement') is None
    # The plugin's options (auth_url...) are read, so not reported.
    assert unused.unused_options(conf) == []


def test_no_credentials_anywhere_is_reported(tmp_path):
    conf = _conf(tmp_path, '[DEFAULT]\nhost = a\n')
    assert clients.auth_group(conf, 'nova') == 'nova'
    assert '[nova] auth_type is not set' in clients.configured(conf, 'nova')


def _registered(conf, group, name):
    return name in conf if group == 'DEFAULT' else (
        group in conf and name in conf[group])


def test_every_alias_is_documented():
    conf = private_conf.private_conf()
    known = unused.known_options()
    aliases = [(group, name) for group, name in WATCHER_OPTIONS
               if (group, name) in known
               and not _registered(conf, group, name)]
    assert len(aliases) >= 6
    doc = (ROOT / 'doc/source/watcher_differences.rst').read_text()
    assert [alias for alias in aliases
            if '``[%s] %s``' % alias not in doc] == []
