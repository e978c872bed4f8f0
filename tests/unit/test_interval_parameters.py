import pytest

from watcher_ha.common import exception
from watcher_ha.common import interval
from watcher_ha.common import parameters


@pytest.mark.parametrize('given,stored', [
    (60, '60'), ('3600', '3600'), (' 120 ', '120'),
    ('*/5 * * * *', '*/5 * * * *'), ('0 3 * * mon', '0 3 * * mon'),
    (None, None)])
def test_intervals_accepted(given, stored):
    assert interval.normalize(given) == stored


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
