"""The three controllers' backends for the tests of this folder
(services.three_controllers): made once per run. They need Debian's
mariadb-server, galera-4, rsync, rabbitmq-server and etcd-server; `make
test-controllers` runs them."""

import shutil

import pytest

from tests import servers
from tests.functional import services
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
    with services.three_controllers() as members:
        yield members
