"""Bugs found by the race and fuzz tests, and Watcher's 500s we answer
with a 4xx or 503, pinned by deterministic tests."""

import concurrent.futures
import sys
import threading
import time

import pytest

from watcher_ha.common import context
from watcher_ha.policies import audit as audit_policy
from watcher_ha.policies import policy


def test_cancelling_a_cancelled_audit_is_refused(api):
    """Of many racing cancels exactly one may succeed: a cancel that reads
    the audit after the winner committed must not be a silent no-op."""
    api.post('/v1/audits', body={'goal': 'dummy', 'audit_type': 'EVENT',
                                 'name': 'e'})
    cancel = [{'op': 'replace', 'path': '/state', 'value': 'CANCELLED'}]
    assert api.patch('/v1/audits/e', body=cancel).status == 200
    again = api.patch('/v1/audits/e', body=cancel)
    assert again.status == 400
    assert 'State transition not allowed: (CANCELLED -> CANCELLED)' in \
        again.fault


def test_policy_enforcer_is_complete_for_racing_first_requests(conf):
    """A worker's first requests race to build the enforcer; none may see
    it before its rules are registered (PolicyNotRegistered, a 500)."""
    # Switch threads as often as possible to open the race window.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        _race_first_requests()
    finally:
        sys.setswitchinterval(interval)
        policy.reset()


def _race_first_requests():
    for _ in range(20):
        policy.reset()
        barrier = threading.Barrier(16)

        def first_request(_):
            barrier.wait()
            return policy.authorize(audit_policy.UPDATE,
                                    context.admin_context())

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            assert all(pool.map(first_request, range(16)))


def test_a_failure_outside_the_handlers_still_answers_in_watchers_format():
    from watcher_ha.api import errors

    def broken(environ, start_response):
        raise RuntimeError('a hook failed')

    seen = {}
    body = errors.ErrorFormatMiddleware(broken)(
        {'REQUEST_METHOD': 'GET', 'PATH_INFO': '/v1/goals'},
        lambda status, headers, exc_info=None: seen.update(status=status))
    assert seen['status'].startswith('500')
    import json
    fault = json.loads(json.loads(b''.join(body))['error_message'])
    assert fault['faultcode'] == 'Server'


@pytest.mark.parametrize('path', [
    '/v1/data_model?data_model_type=compute',
    '/v1/strategies/dummy/state',
])
def test_no_decision_engine_is_503_within_the_rpc_timeout(api, path):
    """Both routes answered by a decision engine over RPC: with none up,
    a 503 saying what to check, after rpc_response_timeout (1 s here)."""
    started = time.monotonic()
    resp = api.get(path, version='1.3')
    assert time.monotonic() - started < 1 + 2
    assert resp.status == 503, resp.body
    assert 'No decision engine answered' in resp.fault
    assert 'watcher-ha-decision-engine runs' in resp.fault
