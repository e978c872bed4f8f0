"""Virtualenvs with another project's release in them (OpenStack
Watcher 17, Masakari 22), made under .bench/ on first use and reused
after: the tests and benchmarks that run that project's own code."""

import fcntl
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCH = ROOT / '.bench'


def python(venv, packages, module):
    """The python of ``venv`` with ``packages`` (pip requirements)
    installed in it, made on first use: (path, None), or (None, why it
    could not be). ``module`` is imported to tell that it is usable.
    Test processes asking at once wait for the one that makes it."""
    venv = pathlib.Path(venv)
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        lock = open(venv.parent / (venv.name + '.lock'), 'w')
    except OSError as err:
        return None, 'cannot write %s: %s' % (venv.parent, err)
    with lock:
        # Released when the file is closed.
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _made(venv, packages, module)


def _made(venv, packages, module):
    python = venv / 'bin' / 'python'
    probe = [str(python), '-c', 'import %s' % module]
    if python.exists() and subprocess.run(
            probe, capture_output=True).returncode == 0:
        return python, None
    print('Installing %s into %s (first use only; takes a few minutes)'
          % (' '.join(packages), venv), flush=True)
    log_path = venv.parent / (venv.name + '-install.log')
    try:
        log_file = open(log_path, 'w')
    except OSError as err:
        return None, 'cannot write %s: %s' % (venv.parent, err)
    with log_file:
        for command in ([sys.executable, '-m', 'venv', str(venv)],
                        [str(python), '-m', 'pip', 'install', *packages]):
            try:
                done = subprocess.run(command, stdout=log_file,
                                      stderr=subprocess.STDOUT, timeout=1800)
            except (OSError, subprocess.SubprocessError) as err:
                return None, '%s: %s' % (' '.join(command[:3]), err)
            if done.returncode:
                tail = log_path.read_text().strip().splitlines()[-3:]
                return None, '%s exited %d: %s (log: %s)' % (
                    ' '.join(command[:4]), done.returncode,
                    ' / '.join(tail), log_path)
    if subprocess.run(probe, capture_output=True).returncode:
        return None, '%s does not import in %s (log: %s)' % (
            module, venv, log_path)
    return python, None


def required(made, what):
    """The python of ``made`` (what python() returned) for a test that
    needs ``what``: the test fails without it under CI=true, and is
    skipped otherwise."""
    import pytest

    from tests import servers
    python, why = made
    if python is None:
        message = 'no %s virtualenv: %s' % (what, why)
        if servers.in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return python
