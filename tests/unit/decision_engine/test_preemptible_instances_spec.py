"""Our goal workload_optimization, strategy workload_preemption and the
delete and shelve actions against the facts of Watcher's approved spec
preemptible-instances (tests/data/reference/watcher-specs/): each
assertion says which section of the spec it follows."""

import json
import re

import pytest

from tests import reference_data
from tests import strategy_clusters as c
from tests.helpers.preemptible_cluster import HOUR
from tests.helpers.preemptible_cluster import NOW
from tests.helpers.preemptible_cluster import server
from watcher_ha.common import exception
from watcher_ha.common import parameters as parameters_mod
from watcher_ha.common import plugins
from watcher_ha.decision_engine.strategy import preemptible as rules
from watcher_ha.decision_engine.strategy import workload_preemption

SPEC = json.loads((reference_data.ROOT / 'watcher-specs'
                   / 'preemptible-instances.json').read_text())
STRATEGY = workload_preemption.WorkloadPreemption
PROPERTIES = STRATEGY.parameters_spec['properties']


def section(fact):
    return 'spec preemptible-instances @%s, %s' % (SPEC['read_at'][:7],
                                                   SPEC[fact]['section'])


def snake(display_name):
    return re.sub(r'\W+', '_', display_name.strip()).lower()


@pytest.fixture(scope='module')
def goal():
    return plugins.load_classes(plugins.GOALS)['workload_optimization']


def test_the_goal(goal):
    why = section('goal')
    assert goal.display_name == SPEC['goal']['display_name'], why
    assert goal.name == snake(SPEC['goal']['display_name']), why
    assert goal.watcher_spec == 'preemptible-instances', why
    assert plugins.load_classes(plugins.STRATEGIES)[
        'workload_preemption'] is STRATEGY, why


def test_the_strategy():
    why = section('strategy')
    assert STRATEGY.display_name == SPEC['strategy']['display_name'], why
    assert STRATEGY.goal == snake(SPEC['goal']['display_name']), why
    assert STRATEGY.data_models == ('compute',), why


def test_the_efficacy_indicators_by_name(goal):
    why = section('efficacy_indicators')
    assert [spec.name for spec in goal.efficacy_specification] == \
        SPEC['efficacy_indicators']['names'], why
    assert all(spec.required for spec in goal.efficacy_specification), why


def test_the_thresholds_are_optional_percentages():
    why = section('thresholds')
    facts = SPEC['thresholds']
    for name in facts['parameters']:
        assert name in PROPERTIES, why
        assert 'default' not in PROPERTIES[name], why
        assert (PROPERTIES[name]['minimum'],
                PROPERTIES[name]['maximum']) == (0, 100), why
    assert facts['each_optional'], why
    assert list(rules.THRESHOLDS) == facts['parameters'], why


def test_every_threshold_set_must_be_met_and_only_those():
    why = section('thresholds')
    nodes = [c.node('n1', vcpus=10, memory_mb=10000, disk_gb=100)]
    servers = [server('a', age=9 * HOUR, vcpus=1, memory_mb=4000,
                      disk_gb=10),
               server('b', age=8 * HOUR, vcpus=5, memory_mb=1000,
                      disk_gb=10)]
    cluster = c.build(nodes, servers)
    # vCPUs 40 % free, RAM 50 %: the vCPUs alone, then RAM as well
    # (met, then not met by the first server alone).
    assert _preempted(cluster, cpu_free_percentage=45) == ['a'], why
    assert _preempted(cluster, cpu_free_percentage=45,
                      ram_free_percentage=50) == ['a'], why
    assert _preempted(cluster, cpu_free_percentage=45,
                      ram_free_percentage=95) == ['a', 'b'], why
    assert _preempted(cluster, ram_free_percentage=95) == ['a', 'b'], why


def test_the_flavor_says_preemptable():
    why = section('flavor_preemptible')
    facts = SPEC['flavor_preemptible']
    assert rules.PREEMPTABLE == facts['extra_spec'], why
    true, false = facts['values']
    assert rules.is_preemptible(server('a', preemptable=true)), why
    assert not rules.is_preemptible(server('a', preemptable=false)), why
    assert not rules.is_preemptible(server('a', preemptable=None)), why


def test_min_instance_age():
    why = section('min_instance_age')
    facts = SPEC['min_instance_age']
    assert PROPERTIES[facts['parameter']]['default'] == facts['default'], \
        why
    young = server('a', age=facts['default'] - 1)
    old = server('b', age=facts['default'])
    assert rules.candidates([young, old], NOW, facts['default'],
                            'delete') == [old], why


def test_preemption_preference():
    why = section('preemption_preference')
    facts = SPEC['preemption_preference']
    spec = PROPERTIES[facts['parameter']]
    assert spec['default'] == facts['default'], why
    assert list(rules.DIRECTIONS) == facts['directions'], why
    assert spec['items']['items'][1]['enum'] == facts['directions'], why
    assert _checked(preemption_preference=facts['example']), why
    for name in facts['standard_class_examples'] + [
            facts['custom_prefix'] + 'GPU']:
        assert _checked(preemption_preference=[
            ['resource:' + name, 'dec']]), why
    with pytest.raises(exception.Invalid):
        _checked(preemption_preference=[['resource:GPU', 'dec']])
    # The default, age dec: the oldest first.
    old, new = server('old', age=9 * HOUR), server('new', age=2 * HOUR)
    assert rules.ordered([new, old], rules.preference(facts['default']),
                         NOW) == [old, new], why
    # A missing allocation counts as missing_allocation.
    assert server('a', allocations={'VCPU': 1}).allocation('CUSTOM_GPU') \
        == facts['missing_allocation'], why


def test_preemption_mode_and_the_flavors_policy():
    why = section('preemption_mode')
    facts = SPEC['preemption_mode']
    spec = PROPERTIES[facts['parameter']]
    assert spec['default'] == facts['default'], why
    assert sorted(spec['enum']) == sorted(facts['values']), why
    assert rules.PREEMPT_POLICY == facts['flavor_property'], why
    for value in facts['flavor_values']:
        assert rules.policy_of(server('a', policy=value),
                               facts['default']) == value, why


def test_the_actions_input_and_conditions():
    from watcher_ha.applier.actions import delete
    from watcher_ha.applier.actions import shelve
    why = section('actions')
    facts = SPEC['actions']
    for plugin in (delete.Delete, shelve.Shelve):
        assert plugin.schema['required'] == list(facts['input']), why
        plugin.validate({'resource_id': '9d5e3c55-0000-4000-8000-'
                                        '000000000000'})
    # The states the conditions name: shelve's pre-condition and
    # post-condition speak of SHELVED, which the action skips and ends
    # in as Nova shows it once offloaded (watcher_differences.rst).
    assert 'SHELVED' in facts['shelve']['pre'], why
    assert 'SHELVED' in facts['shelve']['post'], why
    assert shelve.OFFLOADED.startswith('SHELVED'), why
    assert 'no longer exists' in facts['delete']['post'], why


def _checked(**given):
    return parameters_mod.check(STRATEGY.parameters_spec, given)


def _preempted(cluster, **given):
    goal = plugins.load_classes(plugins.GOALS)['workload_optimization']
    strategy = STRATEGY(goal)
    strategy.now = lambda: NOW
    solution = strategy.execute({}, _checked(**given),
                                models={'compute': cluster})
    return [a.input_parameters['resource_name'] for a in solution.actions]
