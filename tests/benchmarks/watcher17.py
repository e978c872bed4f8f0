"""The virtualenv with OpenStack Watcher 17 the benchmarks compare
against, made under .bench/ on first use."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = 'python-watcher==17.0.0'
VENV = ROOT / '.bench' / 'watcher17-venv'


def python(venv=VENV):
    """The python of ``venv`` with OpenStack Watcher 17 installed in it,
    made on first use: (path, None), or (None, why it could not be)."""
    venv = pathlib.Path(venv)
    python = venv / 'bin' / 'python'
    probe = [str(python), '-c', 'import watcher.decision_engine.model']
    if python.exists() and subprocess.run(
            probe, capture_output=True).returncode == 0:
        return python, None
    print('Installing %s into %s (first use only; takes a few minutes)'
          % (PACKAGE, venv), flush=True)
    log_path = venv.parent / (venv.name + '-install.log')
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        log_file = open(log_path, 'w')
    except OSError as err:
        return None, 'cannot write %s: %s' % (venv.parent, err)
    with log_file:
        for command in ([sys.executable, '-m', 'venv', str(venv)],
                        [str(python), '-m', 'pip', 'install', PACKAGE]):
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
        return None, 'watcher does not import in %s (log: %s)' % (
            venv, log_path)
    return python, None
