"""watcher_ha runs on native threads only."""

import pathlib
import re

from oslo_service import backend

import watcher_ha

PACKAGE = pathlib.Path(watcher_ha.__file__).parent


def test_threading_backend_is_selected():
    assert backend.get_backend_type() == backend.BackendType.THREADING


def test_no_module_imports_eventlet():
    pattern = re.compile(r'^\s*(import|from)\s+eventlet', re.M)
    offenders = [str(path) for path in PACKAGE.rglob('*.py')
                 if pattern.search(path.read_text())]
    assert offenders == []


def test_a_daemon_starts_without_eventlets_dns_resolver():
    """futurist imports eventlet when it is installed; eventlet's green
    resolver (dnspython) is a quarter of a daemon's start, and no green
    thread of ours would use it."""
    import os
    import subprocess
    import sys
    environment = {k: v for k, v in os.environ.items()
                   if k != 'EVENTLET_NO_GREENDNS'}
    shown = subprocess.run(
        [sys.executable, '-c',
         'import sys, watcher_ha.cmd.applier; '
         'print(sorted(m for m in ("eventlet", "dns") if m in sys.modules))'],
        env=environment, capture_output=True, text=True, check=True).stdout
    # eventlet itself still comes with futurist; its resolver does not.
    assert shown.strip() == "['eventlet']", shown
