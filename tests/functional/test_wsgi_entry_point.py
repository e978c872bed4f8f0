"""watcher_ha.api.wsgi:application, as uwsgi or gunicorn load it."""

import json
import os
import subprocess
import sys

from tests.functional import fixtures
from tests.functional import services
from watcher_ha.common import plugins

PROBE = '''
import json, os, webob
from watcher_ha.api.wsgi import application
resp = webob.Request.blank('/v1/goals', headers={
    'X-Auth-Token': os.environ.get('TOKEN', '')}).get_response(application)
print(json.dumps({'status': resp.status_int,
                  'goals': [g['name'] for g in resp.json['goals']]}))
'''


def test_wsgi_application_reads_its_config_file(tmp_path):
    config = fixtures.write_config(tmp_path / 'watcher-ha.conf',
                                   fixtures.base_config(tmp_path))
    fixtures.prepare_database(config)
    env = dict(os.environ, WATCHER_HA_CONFIG_FILE=str(config),
               TOKEN=services.keystone().token())
    out = subprocess.run([sys.executable, '-c', PROBE], env=env, check=True,
                         capture_output=True, text=True, timeout=60).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {
        'status': 200,
        # Synced in entry point (name) order, listed by id: Watcher's order.
        'goals': sorted(plugins.load_classes(plugins.GOALS))}


def test_a_mistyped_config_path_is_refused_saying_so(tmp_path):
    missing = tmp_path / 'watcher-ha.cnof'
    env = dict(os.environ, WATCHER_HA_CONFIG_FILE=str(missing))
    found = subprocess.run([sys.executable, '-c', PROBE], env=env,
                           capture_output=True, text=True, timeout=60)
    assert found.returncode != 0
    assert 'WATCHER_HA_CONFIG_FILE names %s, which does not exist' % (
        missing) in found.stderr, found.stderr
