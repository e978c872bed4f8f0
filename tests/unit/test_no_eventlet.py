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
