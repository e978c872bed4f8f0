import datetime

import pytest

from watcher_ha.common import exception
from watcher_ha.common import interval
from watcher_ha.common import parameters
from watcher_ha.common import scheduling

YEAR_366 = 366 * 24 * 3600


@pytest.mark.parametrize('given,stored', [
    (60, '60'), ('3600', '3600'), (' 120 ', '120'),
    ('*/5 * * * *', '*/5 * * * *'), ('0 3 * * mon', '0 3 * * mon'),
    (1, '1'), (YEAR_366, str(YEAR_366)),
    # Leap days come back within 5 years.
    ('0 0 29 2 *', '0 0 29 2 *'),
    (None, None)])
def test_intervals_accepted(given, stored):
    assert interval.normalize(given) == stored


@pytest.mark.parametrize('given,shown', [
    (0, '0'), (YEAR_366 + 1, '31622401'), (999999999999, '999999999999'),
    ('9' * 400, '9' * 20 + '...')])
def test_seconds_out_of_range_are_400(given, shown):
    with pytest.raises(exception.IntervalOutOfRange) as err:
        interval.normalize(given)
    assert err.value.code == 400
    assert err.value.message == (
        'Interval %s seconds is out of range: a continuous audit runs '
        'every 1 to 31622400 seconds (366 days); for rarer rounds give a '
        'cron expression.' % shown)


@pytest.mark.parametrize('given', [
    '0 0 31 2 *',           # February has no 31st
    '0 0 30 2 *',
    '0 0 1 1 * 0 2099',     # croniter's year field: too far ahead
    '0 0 1 1 * 0 2001',     # ... or past
])
def test_cron_expressions_that_never_run_are_400(given):
    with pytest.raises(exception.IntervalNeverRuns) as err:
        interval.normalize(given)
    assert err.value.code == 400
    message = err.value.message
    assert message.startswith(
        "Invalid interval: the cron expression '%s' matches no time within "
        "5 years of " % given)
    assert message.endswith(
        ', so the audit would never run. Give a cron expression that '
        'matches at least once every 5 years, such as "0 3 1 * *" (03:00 '
        'on the first of each month).')


NOW = datetime.datetime(2030, 1, 1)


@pytest.mark.parametrize('given,reason', [
    ('0 0 31 2 *', "the cron expression '0 0 31 2 *' matches no time "
                   "within 5 years of 2030-01-01 00:00:00 UTC"),
    ('999999999999', 'an interval of 999999999999 seconds after '
                     '2030-01-01 00:00:00 UTC reaches past the end of the '
                     'calendar (year 9999)'),
    ('not cron', "the cron expression 'not cron' cannot be read: "),
])
def test_next_run_raises_one_error_for_what_it_cannot_schedule(given,
                                                                reason):
    # The engine's function: what it raises is what the auditor catches.
    for previous in (None, NOW):
        with pytest.raises(scheduling.UnschedulableInterval) as err:
            scheduling.next_run(given, NOW, previous)
        assert isinstance(err.value, ValueError)
        assert str(err.value).startswith(reason)


@pytest.mark.parametrize('bad', ['abc', '60 * * * *', '0', -5, True, 1.5,
                                 '1 2 3', '', [], {}])
def test_bad_intervals_are_400(bad):
    with pytest.raises(exception.Invalid) as err:
        interval.normalize(bad)
    assert err.value.code == 400


SPEC = {'properties': {
    'period': {'type': 'number', 'default': 7200},
    'aggregation_method': {
        'type': 'object',
        'properties': {'instance': {'type': 'string', 'default': 'mean'}},
        'default': {'instance': 'mean', 'node': ''}}}}


def test_defaults_are_filled_in_nested_too():
    assert parameters.check(SPEC, {}) == {
        'period': 7200, 'aggregation_method': {'instance': 'mean',
                                               'node': ''}}
    assert parameters.check(SPEC, {'aggregation_method': {}}) == {
        'period': 7200, 'aggregation_method': {'instance': 'mean'}}


def test_given_values_win_and_input_is_not_modified():
    given = {'period': 60}
    assert parameters.check(SPEC, given)['period'] == 60
    assert given == {'period': 60}


@pytest.mark.parametrize('given,message', [
    ({'nope': 1}, 'Audit parameter nope are not allowed'),
    ({'period': 'x'}, "'x' is not of type 'number'"),
])
def test_invalid_parameters(given, message):
    with pytest.raises(exception.Invalid) as err:
        parameters.check(SPEC, given)
    assert message in err.value.message


def test_parameters_without_a_spec_are_refused():
    with pytest.raises(exception.Invalid) as err:
        parameters.check(None, {'a': 1})
    assert 'no predefined strategy' in err.value.message
    assert parameters.check(None, {}) == {}


def test_template_defaults_are_checked_but_not_filled():
    assert parameters.check(SPEC, {'period': 5}, fill_defaults=False) == {
        'period': 5}
