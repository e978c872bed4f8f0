"""WATCHER_HA_TESTS_NO_SERVER_RESTARTS=1 leaves out the tests that restart
the machine's shared servers (marked serial), except under CI=true."""

import os
import subprocess
import sys

import pytest

RESTARTS = 'tests/functional/test_ha_restarts.py'


def collected(**env):
    environ = {k: v for k, v in os.environ.items()
               if k not in ('CI', 'WATCHER_HA_TESTS_NO_SERVER_RESTARTS')}
    environ.update(env)
    out = subprocess.run(
        [sys.executable, '-m', 'pytest', '--collect-only', '-q',
         '-p', 'no:cacheprovider', '-m', 'serial', RESTARTS],
        capture_output=True, text=True, env=environ, timeout=300).stdout
    return [line for line in out.splitlines() if '::' in line]


@pytest.mark.parametrize('env,runs', [
    ({}, True),
    ({'WATCHER_HA_TESTS_NO_SERVER_RESTARTS': '1'}, False),
    ({'WATCHER_HA_TESTS_NO_SERVER_RESTARTS': '1', 'CI': 'true'}, True),
])
def test_the_restart_test_runs_unless_opted_out(env, runs):
    assert bool(collected(**env)) == runs
