"""The rules of preemptible servers (strategy/preemptible.py): the flavor
properties, the reusable candidate filter, the generalized sort and the
threshold arithmetic."""

import pytest

from tests import strategy_clusters as c
from tests.helpers.preemptible_cluster import HOUR
from tests.helpers.preemptible_cluster import NOW
from tests.helpers.preemptible_cluster import names
from tests.helpers.preemptible_cluster import server
from watcher_ha.decision_engine.model import elements
from watcher_ha.decision_engine.strategy import preemptible as rules


@pytest.mark.parametrize('value', ['true', 'True', 'TRUE', ' yes ', '1',
                                   'on', 't', 'y'])
def test_a_flavor_says_preemptable_as_oslo_reads_a_true(value):
    assert rules.is_preemptible(server('a', preemptable=value))


@pytest.mark.parametrize('value', ['false', 'False', '0', 'no', 'off',
                                   'maybe', '', 'preemptable', None])
def test_anything_else_is_not_preemptable(value):
    assert not rules.is_preemptible(server('a', preemptable=value))


def test_the_spec_spelling_only():
    # "preemptible" is not the spec's extra spec.
    other = c.server('a', 'n1', flavor_extra_specs=elements.frozen_mapping(
        {'lifecycle:preemptible': 'true'}))
    assert not rules.is_preemptible(other)


@pytest.mark.parametrize('policy,mode,expected', [
    (None, 'delete', 'delete'), (None, 'shelve', 'shelve'),
    ('shelve', 'delete', 'shelve'), ('Shelve ', 'delete', 'shelve'),
    ('delete', 'shelve', 'delete'), ('DELETE', 'shelve', 'delete'),
    ('kill', 'delete', None), ('', 'shelve', None)])
def test_the_flavors_policy_overrides_the_audits_mode(policy, mode,
                                                      expected):
    assert rules.policy_of(server('a', policy=policy), mode) == expected


def test_the_filter_keeps_preemptible_servers_old_enough():
    servers = [
        server('old'), server('normal', preemptable=None),
        server('false', preemptable='false'),
        server('young', age=HOUR - 1), server('just', age=HOUR),
        server('undated', age=None), server('offloaded', host=None,
                                            state='shelved_offloaded'),
        server('locked', locked=True), server('unclear', policy='kill')]
    assert names(rules.candidates(servers, NOW, HOUR, 'delete')) == [
        'old', 'just']
    assert {s.name: rules.exclusion(s, NOW, HOUR, 'delete')
            for s in servers} == {
        'old': None, 'just': None,
        'normal': 'flavor not preemptible',
        'false': 'flavor not preemptible',
        'young': 'younger than min_instance_age',
        'undated': 'creation time unknown',
        'offloaded': 'on no host', 'locked': 'locked',
        'unclear': 'lifecycle:preempt_policy neither delete nor shelve'}
    # The filter can be applied again, to what it returned.
    kept = rules.candidates(servers, NOW, HOUR, 'delete')
    assert rules.candidates(kept, NOW, HOUR, 'delete') == kept
    assert names(rules.candidates(servers, NOW, 0, 'delete')) == [
        'old', 'young', 'just']


def test_shelving_applies_only_to_states_nova_shelves():
    servers = [server(state, state=state)
               for state in ('active', 'stopped', 'paused', 'suspended',
                             'error', 'shelved', 'resized')]
    assert names(rules.candidates(servers, NOW, HOUR, 'shelve')) == [
        'active', 'stopped', 'paused', 'suspended']
    assert len(rules.candidates(servers, NOW, HOUR, 'delete')) == 7
    # A flavor that says delete is deleted in any state.
    errored = server('errored', state='error', policy='delete')
    assert rules.candidates([errored], NOW, HOUR, 'shelve') == [errored]


def test_keys_are_normalized():
    assert rules.preference([['AGE', 'dec'], ['resource:vcpu', 'asc'],
                             ['resource:custom_gpu', 'dec']]) == [
        ('age', 'dec'), ('resource:VCPU', 'asc'),
        ('resource:CUSTOM_GPU', 'dec')]


def order(servers, *pairs):
    return names(rules.ordered(servers, rules.preference(pairs), NOW))


AGED = [server('b', age=2 * HOUR), server('a', age=5 * HOUR),
        server('c', age=3 * HOUR)]


def test_age_dec_preempts_the_oldest_first():
    assert order(AGED, ['age', 'dec']) == ['a', 'c', 'b']
    assert order(AGED, ['age', 'asc']) == ['b', 'c', 'a']


SIZED = [server('small', vcpus=1, memory_mb=1024),
         server('big', vcpus=8, memory_mb=2048),
         server('medium', vcpus=4, memory_mb=8192)]


@pytest.mark.parametrize('key,dec', [
    ('resource:VCPU', ['big', 'medium', 'small']),
    ('resource:MEMORY_MB', ['medium', 'big', 'small'])])
def test_a_resource_key_orders_by_the_allocation(key, dec):
    assert order(SIZED, [key, 'dec']) == dec
    assert order(SIZED, [key, 'asc']) == list(reversed(dec))


def test_placements_allocation_orders_a_custom_class_missing_as_zero():
    servers = [server('none'),
               server('two', allocations={'VCPU': 1, 'CUSTOM_GPU': 2}),
               server('flavor', extra_specs={'resources:CUSTOM_GPU': '1'}),
               server('zero', allocations={'VCPU': 1})]
    assert order(servers, ['resource:CUSTOM_GPU', 'dec']) == [
        'two', 'flavor', 'none', 'zero']
    assert order(servers, ['resource:CUSTOM_GPU', 'asc']) == [
        'none', 'zero', 'flavor', 'two']


def test_ties_keep_their_order_whatever_the_direction():
    same = [server(name, vcpus=2) for name in ('x', 'y', 'z')]
    assert order(same, ['resource:VCPU', 'dec']) == ['x', 'y', 'z']
    assert order(same, ['resource:VCPU', 'asc']) == ['x', 'y', 'z']


def test_each_key_breaks_the_ties_of_those_before():
    servers = [server('young-big', vcpus=8, age=2 * HOUR, memory_mb=1024),
               server('old-small', vcpus=1, age=9 * HOUR, memory_mb=1024),
               server('old-big', vcpus=8, age=9 * HOUR, memory_mb=1024),
               server('old-big-ram', vcpus=8, age=9 * HOUR,
                      memory_mb=4096)]
    assert order(servers, ['resource:VCPU', 'dec'], ['age', 'dec']) == [
        'old-big', 'old-big-ram', 'young-big', 'old-small']
    # The spec's example: largest vCPU first, then memory ascending,
    # then the oldest.
    assert order(servers, ['resource:vcpu', 'dec'],
                 ['resource:memory_mb', 'asc'], ['age', 'dec']) == [
        'old-big', 'young-big', 'old-big-ram', 'old-small']
    assert order(servers, ['age', 'dec'], ['resource:VCPU', 'asc']) == [
        'old-small', 'old-big', 'old-big-ram', 'young-big']


CAPACITY = {'vcpus': 100, 'memory_mb': 1000, 'disk_gb': 50}
USED = {'vcpus': 90, 'memory_mb': 500, 'disk_gb': 45}


@pytest.mark.parametrize('thresholds,short', [
    ({'vcpus': 20.0}, {'vcpus': 10}),
    ({'vcpus': 10.0}, {'vcpus': 0}),
    ({'vcpus': 20.0, 'memory_mb': 60.0}, {'vcpus': 10, 'memory_mb': 100}),
    ({'vcpus': 5.0, 'memory_mb': 50.0, 'disk_gb': 30.0},
     {'vcpus': 0, 'memory_mb': 0, 'disk_gb': 10}),
    ({'vcpus': 0.0}, {'vcpus': 0}),
    ({'disk_gb': 100.0}, {'disk_gb': 45}),
])
def test_what_is_short_of_each_threshold(thresholds, short):
    assert rules.shortfall(CAPACITY, USED, thresholds) == pytest.approx(
        short)


def test_a_threshold_met_within_rounding_is_met():
    # 1.5 x 7 vCPUs, 10.5: 2.1 used of it is exactly 80 % free.
    assert rules.shortfall({'vcpus': 7 * 1.5}, {'vcpus': 2.1},
                           {'vcpus': 80.0}) == {'vcpus': 0}


def test_only_the_thresholds_set_count():
    assert rules.thresholds_of({'cpu_free_percentage': 20,
                                'disk_free_percentage': None,
                                'min_instance_age': 3600}) == {
        'vcpus': 20.0}
    assert rules.thresholds_of({}) == {}
