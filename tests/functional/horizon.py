"""Horizon 27 with the unmodified watcher-dashboard 16 and
masakari-dashboard 15, from PyPI, for the browser test.

They pin Django and friends, so they live in a virtualenv of their own,
made on first use under .bench/horizon27-venv (git ignores .bench/) and
kept for the next run: installed as an operator installs a dashboard
plugin (its ``enabled`` files and policy file copied into Horizon's tree),
with a local_settings.py that takes the Keystone URL from the
environment, and the static files collected. Django's development server
serves it.
"""

import contextlib
import os
import pathlib
import secrets
import shutil
import subprocess
import time

import requests

from tests import venvs
from tests.functional import fixtures
from tools import children

VENV_NAME = 'horizon27-venv'
PACKAGES = ('horizon==27.0.0', 'watcher-dashboard==16.0.0',
            'masakari-dashboard==15.0.0')
# Each plugin's files an operator copies into Horizon's tree, as their
# install guides say: (glob under the plugin's package, folder under
# openstack_dashboard).
PLUGIN_FILES = {
    'watcher_dashboard': (('local/enabled/_31*.py', 'local/enabled'),
                          ('conf/watcher_policy.yaml', 'conf')),
    'masakaridashboard': (('local/enabled/_50_*.py', 'local/enabled'),
                          ('conf/masakari_policy.yaml', 'conf')),
}
LOCAL_SETTINGS = '''\
# Written by tests/functional/horizon.py.
import os

from openstack_dashboard.defaults import POLICY_FILES as _POLICY_FILES

DEBUG = False
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
SECRET_KEY = %(secret)r
OPENSTACK_KEYSTONE_URL = os.environ['HORIZON_KEYSTONE_URL']
# One process: sessions in its memory (the default is memcached).
SESSION_ENGINE = 'django.contrib.sessions.backends.cache'
CACHES = {'default': {
    'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}
COMPRESS_ENABLED = False
COMPRESS_OFFLINE = False
STATIC_ROOT = %(static)r
# The dashboards' policy files, copied beside Horizon's.
POLICY_FILES = dict(_POLICY_FILES, **{
    'infra-optim': 'watcher_policy.yaml',
    'instance-ha': 'masakari_policy.yaml'})
'''
def _install_plugins(python, log):
    """As an operator installs a dashboard plugin, then the static files
    collected."""
    site = venvs.site_packages(python)
    dashboard = site / 'openstack_dashboard'
    for package, files in PLUGIN_FILES.items():
        for pattern, folder in files:
            found = sorted((site / package).glob(pattern))
            if not found:
                raise RuntimeError('%s has no %s' % (package, pattern))
            for path in found:
                shutil.copy(path, dashboard / folder)
    (dashboard / 'local' / 'local_settings.py').write_text(
        LOCAL_SETTINGS % {'secret': secrets.token_urlsafe(32),
                          'static': str(python.parent.parent / 'static')})
    done = subprocess.run(
        [str(python), '-m', 'django', 'collectstatic', '--noinput'],
        env=_environment('http://127.0.0.1:1/v3'), stdout=log,
        stderr=subprocess.STDOUT, timeout=600)
    if done.returncode:
        raise RuntimeError('collectstatic exited %d' % done.returncode)


def _environment(keystone_url):
    return dict(os.environ, HORIZON_KEYSTONE_URL=keystone_url,
                DJANGO_SETTINGS_MODULE='openstack_dashboard.settings')


def python():
    """The virtualenv's python, made on first use: (path, None), or
    (None, why it could not be made)."""
    return venvs.python(venvs.BENCH / VENV_NAME, PACKAGES,
                        finish=_install_plugins)


@contextlib.contextmanager
def serving(python, keystone_url, log_path, timeout=120):
    """Horizon, logging in at ``keystone_url``, on a free loopback port
    while in the block: its URL. Its output goes to ``log_path``."""
    port = fixtures.free_port()
    env = _environment(keystone_url)
    with open(log_path, 'w') as log:
        proc = children.popen(
            [str(python), '-m', 'django', 'runserver', '--noreload',
             '--insecure', '127.0.0.1:%d' % port], env=env, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
    url = 'http://127.0.0.1:%d' % port
    try:
        _wait_answering(proc, url + '/auth/login/', log_path, timeout)
        yield url
    finally:
        fixtures.stop(proc)


def _wait_answering(proc, url, log_path, timeout):
    # Its first page takes seconds (templates compiled, static files
    # found): each try waits long for its answer.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        with contextlib.suppress(requests.RequestException):
            if requests.get(url, timeout=60).status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError('Horizon did not answer on %s within %d s:\n%s' % (
        url, timeout, pathlib.Path(log_path).read_text()[-3000:]))
