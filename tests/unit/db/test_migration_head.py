"""The schema a daemon checks for at start, read without alembic."""

import subprocess
import sys

from alembic import script

from watcher_ha.db import migration


def test_the_scripts_read_directly_are_alembics():
    directory = script.ScriptDirectory(migration.SCRIPT_LOCATION)
    assert migration.head() == directory.get_current_head()
    assert migration.revisions() == {
        revision.revision: tuple(revision._all_down_revisions)
        for revision in directory.walk_revisions()}


def test_a_daemon_starts_without_importing_alembic():
    """alembic loads every SQL dialect it supports as it is imported:
    about a fifth of a daemon's start, for a check that needs none of
    it."""
    shown = subprocess.run(
        [sys.executable, '-c',
         'import sys; from watcher_ha.service import service; '
         'from watcher_ha.cmd import applier, decision_engine; '
         'print("alembic" in sys.modules)'],
        capture_output=True, text=True, check=True).stdout
    assert shown.strip() == 'False'
