"""Which host notifications a decision engine recovers, and why not the
others (the reason is the notification's message)."""

import pytest
from oslo_config import cfg

from watcher_ha.decision_engine.instance_ha import recoveries

CONF = cfg.CONF

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
    (report(host_status='UNKNOWN'), SEGMENT,
     'power fencing is unavailable for segment rack-1 ([ironic] '
     'auth_type is not set'),
    (report(event='STARTED'), SEGMENT, 'reports it is STARTED'),
    (report(), dict(SEGMENT, enabled=False), 'segment rack-1 is disabled'),
    (report(), None, 'no longer exists'),
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


@pytest.fixture
def fencing(config):
    """Ironic credentials, and the power_fencing options to set."""
    config.config(group='ironic', auth_type='none')

    def power_fencing(default, **segments):
        config.config(group='instance_ha', power_fencing=default,
                      segment_power_fencing=segments)
    return power_fencing


@pytest.mark.parametrize('mode, unknown, normal', [
    ('never', False, False),
    ('unknown', True, False),
    ('always', True, True),
])
def test_power_fencing_as_the_segment_says(fencing, mode, unknown, normal):
    fencing('never', **{'rack-1': mode})
    lost, seen_off = report(host_status='UNKNOWN'), report()
    assert recoveries._fenced_by_power(lost, SEGMENT) is unknown
    assert recoveries._fenced_by_power(seen_off, SEGMENT) is normal
    # An UNKNOWN host is recovered only if it is powered off first.
    reason = recoveries._not_recovered(lost, SEGMENT)
    assert (reason is None) is unknown
    if not unknown:
        assert '[instance_ha] power_fencing is never for it' in reason
    assert recoveries._not_recovered(seen_off, SEGMENT) is None


def test_other_segments_follow_the_default(fencing):
    fencing('unknown', lab='never')
    assert recoveries._fenced_by_power(report(host_status='UNKNOWN'),
                                       SEGMENT)
    assert not recoveries._fenced_by_power(
        report(host_status='UNKNOWN'), dict(SEGMENT, name='lab'))


def test_no_power_fencing_without_ironic(config):
    config.config(power_fencing='always', group='instance_ha')
    assert recoveries._power_fencing(SEGMENT) == 'never'
