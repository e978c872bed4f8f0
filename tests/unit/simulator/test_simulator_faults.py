"""The simulator's injected API faults."""

import pytest

from watcher_ha.simulator import faults


def test_a_slow_call_waits_then_answers_normally():
    injected = faults.Faults()
    injected.configure({'api_failures': [
        {'method': 'GET', 'path': '/servers/s1$', 'delay': 20, 'count': 1},
        {'method': 'POST', 'path': '/action$', 'status': 503,
         'delay': 1}]})
    assert injected.api_fault('GET', '/compute/v2.1/servers/s1') == (
        None, 20.0)
    # Used up.
    assert injected.api_fault('GET', '/compute/v2.1/servers/s1') == (
        None, 0.0)
    assert injected.api_fault('POST', '/servers/s1/action') == (503, 1.0)


@pytest.mark.parametrize('failure,error', [
    ({'path': '/x'}, 'a status'),
    ({'status': 200}, 'HTTP error code'),
    ({'delay': -1}, '0 or more'),
])
def test_a_fault_that_makes_no_sense_is_refused(failure, error):
    with pytest.raises(ValueError, match=error):
        faults.Faults().configure({'api_failures': [failure]})
