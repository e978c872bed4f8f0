"""Virtualenvs with other projects' releases in them (OpenStack Watcher
17, Masakari 22, Keystone 30, Horizon 27 with its dashboards), made under
.bench/ (git ignores it) on first use and reused after: the tests and
benchmarks that run those projects' own code beside ours (each pins its
own dependencies)."""

import pathlib
import shutil
import subprocess
import sys

import uv as uv_bin

from tests.helpers import made_once

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCH = ROOT / '.bench'


def python(venv, packages, module=None, finish=None):
    """The python of ``venv`` with ``packages`` (pip requirements)
    installed, then ``finish(python, log file)`` run (it raises
    RuntimeError to fail): (path, None), or (None, why it could not be
    made). ``module``, if given, must import there. A virtualenv is made
    again when ``packages`` change or an earlier try did not end; test
    processes asking at once wait for the one that makes it."""
    venv = pathlib.Path(venv)
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        lock = made_once.exclusive(venv.parent / (venv.name + '.lock'))
    except OSError as err:
        return None, 'cannot write %s: %s' % (venv.parent, err)
    with lock:
        return _made(venv, list(packages), module, finish)


def _usable(python, module):
    return module is None or subprocess.run(
        [str(python), '-c', 'import %s' % module],
        capture_output=True).returncode == 0


def _install_commands(venv, python, packages):
    """Made with uv: resolved and installed in a third of pip's CPU
    time (a fresh clone's test run makes four of these virtualenvs, on
    two cores, beside the tests). Compiled as installed, as pip does: this
    machine's environment may say PYTHONDONTWRITEBYTECODE, and every
    process of Keystone or Horizon would then compile its imports again."""
    uv = uv_bin.find_uv_bin()
    return ([uv, 'venv', '--quiet', '--python', sys.executable, str(venv)],
            [uv, 'pip', 'install', '--python', str(python),
             '--compile-bytecode', *packages])


def _made(venv, packages, module, finish):
    python = venv / 'bin' / 'python'
    # Written last: the virtualenv is complete, with these packages.
    stamp = made_once.Stamp(venv / 'ready', '\n'.join(packages))
    if stamp.current() and _usable(python, module):
        return python, None
    print('Installing %s into %s (first use only; takes a few minutes)'
          % (' '.join(packages), venv), flush=True)
    shutil.rmtree(venv, ignore_errors=True)
    log_path = venv.parent / (venv.name + '-install.log')
    try:
        log_file = open(log_path, 'w')
    except OSError as err:
        return None, 'cannot write %s: %s' % (venv.parent, err)
    with log_file:
        for command in _install_commands(venv, python, packages):
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
        if finish is not None:
            try:
                finish(python, log_file)
            except (OSError, RuntimeError, subprocess.SubprocessError) as err:
                return None, '%s (log: %s)' % (err, log_path)
    if not _usable(python, module):
        return None, '%s does not import in %s (log: %s)' % (
            module, venv, log_path)
    stamp.write()
    return python, None


def site_packages(python):
    """The site-packages folder of the virtualenv of ``python``."""
    return pathlib.Path(subprocess.run(
        [str(python), '-c', 'import sysconfig; '
                            'print(sysconfig.get_paths()["purelib"])'],
        check=True, capture_output=True, text=True).stdout.strip())


def required(made, what):
    """The python of ``made`` (what python() returned) for a test that
    needs ``what``: the test fails without it under CI=true, and is
    skipped otherwise."""
    import pytest

    from tests import servers
    made_python, why = made
    if made_python is None:
        message = 'no %s virtualenv: %s' % (what, why)
        if servers.in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return made_python
