"""Which host notifications a decision engine recovers, and why not the
others (the reason is the notification's message)."""

import pytest

from watcher_ha.decision_engine import recoveries

SEGMENT = {'name': 'rack-1', 'enabled': True}


def report(kind='COMPUTE_HOST', **payload):
    return {'type': kind, 'payload': dict(
        {'event': 'STOPPED', 'host_status': 'NORMAL',
         'cluster_status': 'OFFLINE'}, **payload)}


def test_a_stopped_host_seen_powered_off_is_recovered():
    assert recoveries._not_recovered(report(), SEGMENT) is None
    # The kubernetes host monitor sends no host_status.
    row = report()
    del row['payload']['host_status']
    assert recoveries._not_recovered(row, SEGMENT) is None


@pytest.mark.parametrize('row, segment, reason', [
    (report(host_status='UNKNOWN'), SEGMENT, 'host_status UNKNOWN'),
    (report(event='STARTED'), SEGMENT, 'reports it is STARTED'),
    (report(), dict(SEGMENT, enabled=False), 'segment rack-1 is disabled'),
    (report(), None, 'no longer exists'),
    (report('VM'), SEGMENT, 'VM notifications are recorded'),
    (report('PROCESS'), SEGMENT, 'PROCESS notifications are recorded'),
])
def test_the_others_are_left_and_say_why(row, segment, reason):
    assert reason in recoveries._not_recovered(row, segment)


@pytest.mark.parametrize('method, attempts', [
    ('auto', ['auto', 'auto', 'auto']),
    ('reserved_host', ['reserved_host'] * 3),
    # A round tries the first method, then at once the other.
    ('auto_priority', ['auto', 'reserved_host', 'auto', 'reserved_host']),
    ('rh_priority', ['reserved_host', 'auto', 'reserved_host', 'auto']),
])
def test_each_attempt_uses_its_rounds_method(method, attempts):
    segment = dict(SEGMENT, recovery_method=method)
    assert [recoveries._method(segment, n)
            for n in range(1, len(attempts) + 1)] == attempts
    assert len(recoveries._round(segment)) == (
        2 if method.endswith('priority') else 1)
