"""The virtualenv with OpenStack Watcher 17 the benchmarks compare
against, made under .bench/ on first use."""

from tests import venvs

PACKAGE = 'python-watcher==17.0.0'
# With the MySQL driver a Watcher deployment on MariaDB installs beside it
# (the import tests fill a Watcher database on MariaDB).
PACKAGES = (PACKAGE, 'PyMySQL')
VENV = venvs.BENCH / 'watcher17-venv'


def python(venv=VENV):
    """The python of ``venv`` with OpenStack Watcher 17 installed in it,
    made on first use: (path, None), or (None, why it could not be)."""
    return venvs.python(venv, PACKAGES, 'watcher.decision_engine.model')
