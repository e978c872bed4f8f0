"""A real Keystone 30 from PyPI, run beside the simulator's to test the
fake against the real thing: its virtualenv made on first use under
.bench/keystone30-venv with a SQLite database and Fernet keys
bootstrapped as keystone-manage bootstrap does in devstack (admin /
admin, project admin, region RegionOne, its identity endpoint), copied
afresh for each run."""

import contextlib
import grp
import os
import pathlib
import pwd
import shutil
import subprocess
import time

import requests

from tests import venvs
from tests.functional import fixtures
from tools import children

PACKAGES = ('keystone==30.0.0',)
CONFIG = '''\
[DEFAULT]
debug = false
[database]
connection = sqlite:///%(dir)s/keystone.db
[fernet_tokens]
key_repository = %(dir)s/fernet-keys
[fernet_receipts]
key_repository = %(dir)s/fernet-keys
[credential]
key_repository = %(dir)s/credential-keys
[token]
provider = fernet
'''


def python():
    """(path, None), or (None, why Keystone's virtualenv is missing). The
    virtualenv keeps a bootstrapped database and keys, copied for each
    run (bootstrapping takes minutes on a loaded machine)."""
    return venvs.python(venvs.BENCH / 'keystone30-venv', PACKAGES,
                        finish=_bootstrap)


def _template(python):
    return python.parent.parent / 'bootstrapped'


def _configure(folder):
    for name in ('fernet-keys', 'credential-keys'):
        (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / 'keystone.conf').write_text(CONFIG % {'dir': folder})


def _bootstrap(python, log):
    """A database and keys, as keystone-manage bootstrap leaves them
    (the identity endpoint's URL in the catalog names no real port)."""
    folder = _template(python)
    _configure(folder)
    manage = [str(python.parent / 'keystone-manage'), '--config-file',
              str(folder / 'keystone.conf')]
    owner = ['--keystone-user', pwd.getpwuid(os.getuid()).pw_name,
             '--keystone-group', grp.getgrgid(os.getgid()).gr_name]
    for step in (['db_sync'], ['fernet_setup', *owner],
                 ['credential_setup', *owner],
                 ['bootstrap', '--bootstrap-password', 'admin',
                  '--bootstrap-region-id', 'RegionOne',
                  *[argument for interface in ('admin', 'internal', 'public')
                    for argument in ('--bootstrap-%s-url' % interface,
                                     'http://127.0.0.1:5000/identity')]]):
        done = subprocess.run(manage + step, stdout=log,
                              stderr=subprocess.STDOUT, timeout=600)
        if done.returncode:
            raise RuntimeError('keystone-manage %s exited %d'
                               % (step[0], done.returncode))


@contextlib.contextmanager
def serving(python, folder, timeout=120):
    """Keystone on a free loopback port while in the block: its URL (its
    API under /identity). Its state (a copy of the bootstrapped one) and
    output go in ``folder``."""
    folder = pathlib.Path(folder)
    shutil.copytree(_template(python), folder, dirs_exist_ok=True)
    _configure(folder)
    port = fixtures.free_port()
    url = 'http://127.0.0.1:%d' % port
    log_path = folder / 'keystone.log'
    with open(log_path, 'w') as log:
        proc = children.popen(
            [str(python), str(pathlib.Path(__file__).with_name(
                'real_keystone_server.py')), str(folder), str(port)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError('Keystone did not answer:\n%s'
                                   % log_path.read_text()[-3000:])
            with contextlib.suppress(requests.RequestException):
                if requests.get(url + '/identity/v3',
                                timeout=30).status_code == 200:
                    break
            time.sleep(0.5)
        yield url
    finally:
        fixtures.stop(proc)
