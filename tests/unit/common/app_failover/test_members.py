"""What an application's failover decides from its members as Nova shows
them: fail over an unhealthy active to a healthy standby, replace an
unhealthy standby, or nothing (and why): a healthy application, too many
unhealthy members at once (the circuit breaker), no active or two, no
standby that can take over now, a failure alarm repeated just after an
activation."""

import dataclasses
import datetime

import pytest

from watcher_ha.common.app_failover import members as m


def member(uuid, role, status='ACTIVE', host_down=False, name=None):
    return m.Member(uuid=uuid, name=name or uuid, role=role, status=status,
                    host='host-' + uuid, host_down=host_down)


ACTIVE = member('a', m.ACTIVE)
STANDBY = member('s', m.STANDBY)


def test_a_healthy_application_is_left_alone():
    found = m.decide([ACTIVE, STANDBY], max_unhealthy=1)
    assert found.what == m.NOTHING
    assert found.reason == 'every member is healthy (active: a)'


@pytest.mark.parametrize('failed, why', [
    (member('a', m.ACTIVE, host_down=True), 'its host host-a is down'),
    (member('a', m.ACTIVE, status='ERROR'), 'Nova shows it ERROR'),
    (member('a', m.ACTIVE, status='SHUTOFF'), 'Nova shows it SHUTOFF'),
    (member('a', m.ACTIVE, status=m.GONE), 'it is gone from Nova'),
])
def test_an_unhealthy_active_fails_over_to_its_standby(failed, why):
    found = m.decide([failed, STANDBY], max_unhealthy=1)
    assert (found.what, found.failed, found.successor) == (
        m.FAIL_OVER, failed, STANDBY)
    assert found.reason == 'the active member a is unhealthy: ' + why


def test_a_member_on_its_way_somewhere_is_not_unhealthy():
    moving = member('a', m.ACTIVE, status='MIGRATING')
    assert m.decide([moving, STANDBY], 1).what == m.NOTHING


def test_a_trigger_that_reports_failure_fails_a_running_active_over():
    found = m.decide([ACTIVE, STANDBY], 1, trigger=m.TRIGGER_FAILED)
    assert (found.what, found.failed) == (m.FAIL_OVER, ACTIVE)
    assert 'the trigger reports it failed' in found.reason


def test_the_first_healthy_standby_by_name_takes_over():
    sick = member('s1', m.STANDBY, status='ERROR', name='b')
    well = member('s2', m.STANDBY, name='c')
    other = member('s3', m.STANDBY, name='d')
    failed = member('a', m.ACTIVE, host_down=True)
    found = m.decide([failed, other, sick, well], max_unhealthy=2)
    assert found.successor == well


def test_an_unhealthy_standby_is_replaced():
    sick = member('s', m.STANDBY, host_down=True)
    found = m.decide([ACTIVE, sick], 1)
    assert (found.what, found.failed, found.successor) == (
        m.REPLACE_STANDBY, sick, None)


def test_more_unhealthy_members_than_allowed_moves_nothing():
    members = [member('a', m.ACTIVE, host_down=True),
               member('s', m.STANDBY, host_down=True),
               member('t', m.STANDBY)]
    found = m.decide(members, max_unhealthy=1)
    assert found.what == m.NOTHING
    assert found.reason.startswith('2 of the 3 members are unhealthy (a: '
                                   'its host host-a is down; s: ')
    assert 'more than max_unhealthy (1): nothing moves' in found.reason
    assert m.decide(members, max_unhealthy=2).what == m.FAIL_OVER


@pytest.mark.parametrize('members, reason', [
    ([member('a', m.STANDBY), member('b', m.STANDBY)],
     'no member has the role active'),
    ([member('a', m.ACTIVE), member('b', m.ACTIVE)],
     'members a, b all have the role active'),
    ([member('a', m.ACTIVE, status='ERROR'),
      member('b', m.STANDBY, status='ERROR')],
     '2 of the 2 members are unhealthy'),
])
def test_what_cannot_be_failed_over_says_why(members, reason):
    found = m.decide(members, max_unhealthy=1)
    assert found.what == m.NOTHING
    assert reason in found.reason


def test_no_healthy_standby_is_nothing_to_fail_over_to():
    found = m.decide([member('a', m.ACTIVE, status='ERROR'),
                      member('b', m.STANDBY, status='ERROR')],
                     max_unhealthy=2)
    assert found.what == m.NOTHING
    assert 'no standby can take over' in found.reason


@pytest.mark.parametrize('successor', [
    member('s', m.STANDBY, status='BUILD'),
    m.Member(uuid='s', name='s', role=m.STANDBY, status='ACTIVE',
             host='h', host_down=False, task_state='rebooting'),
])
def test_a_standby_that_cannot_take_volumes_yet_is_no_successor(successor):
    found = m.decide([member('a', m.ACTIVE, host_down=True), successor],
                     max_unhealthy=1)
    assert found.what == m.NOTHING
    assert 'no standby can take over' in found.reason


def test_a_repeated_failure_alarm_does_not_fail_the_new_active_over():
    now = datetime.datetime(2026, 11, 27, 12, 0, 0)
    fresh = m.Member(uuid='a', name='a', role=m.ACTIVE, status='ACTIVE',
                     host='h', host_down=False,
                     activated_at=now - datetime.timedelta(seconds=30))
    found = m.decide([fresh, STANDBY], 1, trigger=m.TRIGGER_FAILED,
                     now=now, failed_grace=300)
    assert found.what == m.NOTHING
    assert 'activated 30 s ago, within failed_trigger_grace' in found.reason
    later = now + datetime.timedelta(seconds=300)
    assert m.decide([fresh, STANDBY], 1, trigger=m.TRIGGER_FAILED,
                    now=later, failed_grace=300).what == m.FAIL_OVER
    # A host that is down is a failure whenever it comes.
    down = dataclasses.replace(fresh, host_down=True)
    assert m.decide([down, STANDBY], 1, trigger=m.TRIGGER_FAILED, now=now,
                    failed_grace=300).what == m.FAIL_OVER


def test_the_activation_time_is_read_from_metadata():
    assert m.activated_at({m.ACTIVATED_KEY: '2026-11-27T12:00:00'}) == \
        datetime.datetime(2026, 11, 27, 12)
    assert m.activated_at({m.ACTIVATED_KEY: 'soon'}) is None
    assert m.activated_at({}) is None


T0 = datetime.datetime(2026, 11, 28, 12, 0, 0)


def at(seconds):
    return T0 + datetime.timedelta(seconds=seconds)


def test_a_member_instance_ha_gave_up_restarting_is_unhealthy():
    report = m.Report('n1', ended_at=at(10), server='a')
    why = m.reported_failure(ACTIVE, [report])
    assert why == 'instance HA could not restart it (notification n1)'
    failed = dataclasses.replace(ACTIVE, reported_failed=why)
    found = m.decide([failed, STANDBY], 1)
    assert (found.what, found.failed, found.successor) == (
        m.FAIL_OVER, failed, STANDBY)
    assert found.reason.endswith(why)
    # Another server's report says nothing of this one.
    assert m.reported_failure(ACTIVE, [m.Report(
        'n2', ended_at=at(10), server='s')]) is None


def test_a_process_that_stopped_on_its_host_makes_a_member_unhealthy():
    report = m.Report('n3', ended_at=at(10), host='host-s',
                      process='nova-compute')
    assert m.reported_failure(STANDBY, [report]) == (
        'process nova-compute of its host host-s stopped and its monitor '
        'could not restart it (notification n3)')
    assert m.reported_failure(ACTIVE, [report]) is None
    sick = dataclasses.replace(STANDBY, reported_failed='x')
    assert m.decide([ACTIVE, sick], 1).what == m.REPLACE_STANDBY


def test_a_report_older_than_the_last_plan_or_activation_is_outlived():
    report = m.Report('n1', ended_at=at(10), server='a')
    # The last failover's plan came after it: it was acted on.
    assert m.reported_failure(ACTIVE, [report], since=at(11)) is None
    # The member was activated after it.
    fresh = dataclasses.replace(ACTIVE, activated_at=at(20))
    assert m.reported_failure(fresh, [report], since=at(5)) is None
    assert m.reported_failure(ACTIVE, [report], since=at(5)) is not None
