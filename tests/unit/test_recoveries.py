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
