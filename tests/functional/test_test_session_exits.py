"""A test session run in one process (without pytest-xdist, as a
developer runs one test file) exits when its tests are done, whatever
the functional tests' own servers left running."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# A test that sends a request: the tests' Keystone starts to give it a
# token (tests/functional/conftest.py).
AUTHENTICATED = '''
import requests

from tests.functional import identity


def test_a_request_carries_a_token():
    response = requests.get(identity.keystone().url)
    assert response.status_code == 200
'''


def test_a_session_that_started_the_tests_keystone_exits(tmp_path):
    (tmp_path / 'test_probe.py').write_text(AUTHENTICATED)
    # The functional tests' conftest as a plugin: its session fixture
    # starts and stops the Keystone as it does for every functional test.
    command = [sys.executable, '-m', 'pytest', '-q', '-p', 'no:xdist',
               '-p', 'no:cacheprovider', '-p', 'tests.functional.conftest',
               '--rootdir', str(tmp_path), str(tmp_path / 'test_probe.py')]
    env = dict(os.environ, PYTHONPATH=REPO)
    try:
        done = subprocess.run(command, cwd=REPO, env=env, timeout=60,
                              capture_output=True, text=True)
    except subprocess.TimeoutExpired as hung:
        raise AssertionError(
            'the test session did not exit 60 s after it started: %s'
            % (hung.stdout or b'')) from None
    assert done.returncode == 0, done.stdout + done.stderr
    assert '1 passed' in done.stdout
