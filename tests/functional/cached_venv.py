"""Virtualenvs of other projects the functional tests run beside ours
(they pin their own dependencies), made on first use under .bench/ (git
ignores it) and kept for the next runs."""

import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / '.bench'


def site_packages(python):
    return pathlib.Path(subprocess.run(
        [str(python), '-c', 'import sysconfig; '
                            'print(sysconfig.get_paths()["purelib"])'],
        check=True, capture_output=True, text=True).stdout.strip())


def ensure(name, packages, finish=None):
    """The python of .bench/<name> with ``packages`` installed, then
    ``finish(python, log file)`` run (it raises RuntimeError to fail):
    (path, None), or (None, why it could not be made). A virtualenv is
    made again when ``packages`` change or a former try did not end."""
    venv = BENCH / name
    python = venv / 'bin' / 'python'
    stamp = venv / 'ready'
    wanted = '\n'.join(packages)
    if stamp.exists() and stamp.read_text() == wanted:
        return python, None
    print('Installing %s into %s (first use only; takes a few minutes)'
          % (', '.join(packages), venv), flush=True)
    shutil.rmtree(venv, ignore_errors=True)
    log_path = BENCH / (name + '-install.log')
    BENCH.mkdir(parents=True, exist_ok=True)
    with open(log_path, 'w') as log:
        for command in ([sys.executable, '-m', 'venv', str(venv)],
                        [str(python), '-m', 'pip', 'install', '--quiet',
                         *packages]):
            try:
                done = subprocess.run(command, stdout=log,
                                      stderr=subprocess.STDOUT,
                                      timeout=1800)
            except (OSError, subprocess.SubprocessError) as err:
                return None, '%s: %s' % (' '.join(command[:4]), err)
            if done.returncode:
                return None, '%s exited %d (log: %s)' % (
                    ' '.join(command[:5]), done.returncode, log_path)
        if finish is not None:
            try:
                finish(python, log)
            except (OSError, RuntimeError, subprocess.SubprocessError) as err:
                return None, '%s (log: %s)' % (err, log_path)
    # Written last: its presence means the virtualenv is complete.
    stamp.write_text(wanted)
    return python, None
