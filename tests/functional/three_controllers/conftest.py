"""The three controllers' backends (tools/controllers.py) for the tests
of this folder: made once per run in a folder of their own, taken down
and removed at its end. They need Debian's mariadb-server, galera-4, rsync,
rabbitmq-server and etcd-server; `make test-controllers` runs them."""

import pathlib
import shutil
import tempfile

import pytest

from tests import servers
from tools import controllers

PROGRAMS = ('mariadbd', 'etcd', 'rsync', str(controllers.RABBIT_BIN
                                              / 'rabbitmq-server'))


@pytest.fixture(scope='session')
def three_controllers():
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        message = ('the three controllers need %s: sudo apt-get install '
                   'mariadb-server galera-4 rsync rabbitmq-server '
                   'etcd-server' % ', '.join(missing))
        if servers.in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    # Not under pytest's own temporary folder: it is private to this
    # user, and the Galera nodes run as Debian's mysql user.
    root = pathlib.Path(tempfile.mkdtemp(prefix='watcher-ha-controllers-'))
    root.chmod(0o755)
    members = controllers.controllers(root, controllers.DEFAULT_BASE_PORT)
    try:
        controllers.up(members)
        yield members
    finally:
        controllers.down(members)
        shutil.rmtree(root, ignore_errors=True)
