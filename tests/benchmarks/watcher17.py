"""The virtualenv with OpenStack Watcher 17 the benchmarks compare
against, made under .bench/ on first use."""

from tests import venvs

PACKAGE = 'python-watcher==17.0.0'
VENV = venvs.BENCH / 'watcher17-venv'


def python(venv=VENV):
    """The python of ``venv`` with OpenStack Watcher 17 installed in it,
    made on first use: (path, None), or (None, why it could not be)."""
    return venvs.python(venv, [PACKAGE], 'watcher.decision_engine.model')
