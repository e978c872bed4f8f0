"""watcher-ha-db-manage import-masakari, from a database that the real
masakari 22 created (its own ``masakari-manage db sync``, on MariaDB and
SQLite) and filled (its own API and objects:
tests/functional/masakari22_fill.py), into a freshly migrated database of
ours; what was copied is read back through our instance-ha API and
compared with what Masakari's own API showed.

The virtualenv with masakari 22 is made under .bench/ on first use (about
a minute and a half) and reused after.
"""

import json
import pathlib
import shutil
import subprocess

import pytest
import requests

from tests import venvs
from tests.functional import db_imports
from tests.functional import fixtures
from tests.functional import services
from tests.functional.db_imports import Ours

pytestmark = pytest.mark.functional

PACKAGES = ['masakari==22.*', 'PyMySQL']
VENV = venvs.BENCH / 'masakari22-venv'
FILL = pathlib.Path(__file__).with_name('masakari22_fill.py')
TABLES = ('segments', 'hosts', 'notifications', 'vmoves')
# Masakari's API at 1.3 and ours at the same version: every field shown.
VERSION = {'OpenStack-API-Version': 'instance-ha 1.3'}
# Our integer ids are ours.
UNCOMPARED = ('id',)


def _fill(python, tmp, url):
    """Masakari's schema on ``url``, by Masakari, then filled by it: what
    Masakari's API shows then."""
    # Masakari's own paste pipeline, as the virtualenv installs it.
    shutil.copy(python.parent.parent / 'etc' / 'masakari' / 'api-paste.ini',
                tmp / 'api-paste.ini')
    conf = fixtures.write_config(tmp / 'masakari.conf', {
        'DEFAULT': {'auth_strategy': 'noauth2', 'transport_url': 'fake://',
                    'notification_delay_max': 0,
                    'log_file': str(tmp / 'masakari.log')},
        'oslo_messaging_notifications': {'driver': 'noop'},
        'database': {'connection': url},
        'taskflow': {'connection': url},
    })
    shown = None
    for command in ([str(python.parent / 'masakari-manage'),
                     '--config-file', str(conf), 'db', 'sync'],
                    [str(python), '-W', 'ignore', str(FILL), str(tmp)]):
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=300)
        log = tmp / 'masakari.log'
        assert done.returncode == 0, '%s failed:\n%s\n%s' % (
            command, done.stderr[-3000:],
            log.read_text()[-3000:] if log.exists() else '')
        shown = done.stdout
    return json.loads(shown)


# Where Masakari's database is -> where ours is, for the copy checked
# through our API: each of Masakari's and each of our three databases
# once.
TARGET = {'mysql': 'mysql', 'sqlite': 'postgresql'}


@pytest.fixture(scope='module', params=sorted(TARGET))
def masakari(request, tmp_path_factory):
    """A Masakari 22 database filled by Masakari: (kind, URL, what its
    API showed)."""
    python = venvs.required(
        venvs.python(VENV, PACKAGES, 'masakari.cmd.api'), 'masakari 22')
    tmp = tmp_path_factory.mktemp('masakari22')
    if request.param == 'sqlite':
        url, drop = 'sqlite:///%s/masakari.sqlite' % tmp, lambda: None
    else:
        url, drop = services.create_database(request.param)
    try:
        yield request.param, url, _fill(python, tmp, url)
    finally:
        drop()


def _summary(output):
    return db_imports.summary(output, TABLES)


def _comparable(item):
    """An API object without our integer ids (at any depth)."""
    return {key: _comparable(value) if isinstance(value, dict) else value
            for key, value in item.items() if key not in UNCOMPARED}


def _by(items, key):
    return {item[key]: _comparable(item) for item in items}


def _get(api, path, collection):
    resp = requests.get('%s/instance-ha/v1%s' % (api, path),
                        headers=VERSION, timeout=30)
    assert resp.status_code == 200, resp.text
    return resp.json()[collection]


def _check_api(api, shown):
    """Every segment, host, finished notification and server move of
    Masakari is served here with Masakari's UUID and every field as
    Masakari's API showed it."""
    segments = _get(api, '/segments', 'segments')
    assert _by(segments, 'uuid') == _by(shown['segments'], 'uuid')
    for segment in shown['segments']:
        hosts = _get(api, '/segments/%s/hosts' % segment['uuid'], 'hosts')
        assert _by(hosts, 'uuid') == _by(shown['hosts'][segment['uuid']],
                                         'uuid')
    finished = [n for n in shown['notifications']
                if n['status'] in ('finished', 'failed', 'ignored')]
    notifications = _get(api, '/notifications', 'notifications')
    assert _by(notifications, 'notification_uuid') == _by(
        finished, 'notification_uuid')
    for notification in finished:
        uuid = notification['notification_uuid']
        # Masakari's engine kept the steps of its recoveries, which are
        # not copied.
        shown_here = _get(api, '/notifications/%s' % uuid, 'notification')
        assert _comparable(shown_here) == dict(
            _comparable(notification), recovery_workflow_details=[])
        if notification['type'] != 'COMPUTE_HOST':
            continue
        moves = _get(api, '/notifications/%s/vmoves' % uuid, 'vmoves')
        assert _by(moves, 'uuid') == _by(shown['vmoves'][uuid], 'uuid')
        assert moves


def test_import_keeps_uuids_and_fields(masakari, tmp_path):
    kind, url, shown = masakari
    ours = Ours(tmp_path, TARGET[kind], 'import-masakari')
    try:
        first = ours.import_(url).stdout
        # masakari22_fill.py: 3 segments and 6 hosts live, one segment
        # and two hosts deleted; 4 notifications finished with, 3 not.
        assert _summary(first) == {'segments': (3, 0, 1),
                                   'hosts': (6, 0, 2),
                                   'notifications': (4, 0, 3),
                                   'vmoves': (3, 0, 0)}, first
        for status in ('new', 'running', 'error'):
            assert 'still %s in Masakari: left to it' % status in first
        assert '3 notification(s) Masakari had not finished' in first

        again = ours.import_(url).stdout
        assert _summary(again) == {'segments': (0, 3, 1),
                                   'hosts': (0, 6, 2),
                                   'notifications': (0, 4, 3),
                                   'vmoves': (0, 3, 0)}, again
        with services.api_process(ours.config, ours.port) as api:
            _check_api(api, shown)
    finally:
        ours.drop()


@pytest.mark.parametrize('masakari', ['sqlite'], indirect=True)
def test_refusals_copy_nothing(masakari, tmp_path):
    """What is not a Masakari 22 database is refused. A segment or host
    here under a Masakari UUID or name with other content refuses the
    import, naming each and how to resolve it, and nothing is copied; a
    dry run reports what would be copied, and writes nothing."""
    _, url, shown = masakari
    ours = Ours(tmp_path, 'sqlite', 'import-masakari')
    db_imports.check_refuses_other_databases(ours, tmp_path,
                                             'not a Masakari database')

    dry = ours.import_(url, '--dry-run').stdout
    assert 'Dry run: nothing was written.' in dry
    assert _summary(dry)['segments'] == (3, 0, 1)
    assert ours.count('failover_segments') == 0

    auto = next(s for s in shown['segments'] if s['name'] == 'seg-auto')
    # Made here before the import, under a name Masakari has.
    ours.sql("INSERT INTO failover_segments (uuid, name, service_type, "
             "enabled, recovery_method, created_at) VALUES ('00000000-0000-"
             "4000-8000-000000000001', 'seg-auto', 'COMPUTE', 1, 'auto', "
             "CURRENT_TIMESTAMP)")
    refused = ours.import_(url, check=False)
    assert refused.returncode != 0
    assert ('segment %s: another segment is named seg-auto here (UUID '
            '00000000-0000-4000-8000-000000000001)' % auto['uuid']
            in refused.stderr), refused.stderr
    assert 'openstack segment delete' in refused.stderr
    assert ours.count('failover_segments') == 1
    assert ours.count('segment_hosts') == 0

    ours.sql('DELETE FROM failover_segments')
    ours.import_(url)
    # Changed here since the first import: the second names both rows
    # and what differs, and does not copy back the server move deleted
    # here meanwhile.
    host = shown['hosts'][auto['uuid']][0]
    ours.sql("UPDATE failover_segments SET description = 'changed here' "
             "WHERE uuid = :uuid", uuid=auto['uuid'])
    ours.sql('UPDATE segment_hosts SET reserved = 1 WHERE uuid = :uuid',
             uuid=host['uuid'])
    ours.sql('DELETE FROM vmoves WHERE id = (SELECT MIN(id) FROM vmoves)')
    refused = ours.import_(url, check=False)
    assert refused.returncode != 0
    assert 'Nothing was copied: 2 row(s)' in refused.stderr, refused.stderr
    assert ("segment %s: description is 'changed here' here, 'made by "
            "Masakari 22' in Masakari" % auto['uuid'] in refused.stderr)
    assert ('host %s: reserved is True here, False in Masakari'
            % host['uuid'] in refused.stderr)
    assert ours.count('vmoves') == 2
