"""The node_resource_consolidation planner: disable, drain host by host,
enable again."""

import pytest

from tests.helpers import solutions
from watcher_ha.applier import workflow
from watcher_ha.conf import CONF
from watcher_ha.decision_engine.planner import base
from watcher_ha.decision_engine.planner import node_resource_consolidation \
    as nrc


def planner(**widths):
    return nrc.NodeResourceConsolidationPlanner(
        dict({'change_nova_service_state': 5, 'migrate': 5}, **widths))


def labelled(planned):
    """{'disabled:h1' / 'enabled:h1' / 'migrate:a': action}."""
    return {('migrate:' + p.input_parameters['resource_id']
             if p.action_type == 'migrate' else '%s:%s' % (
                 p.input_parameters['state'],
                 p.input_parameters['resource_id'])): p
            for p in planned}


def parents_of(found, label):
    names = {action.uuid: name for name, action in found.items()}
    return sorted(names[uuid] for uuid in found[label].parents)


def consolidation():
    """The strategy's order: disable the hosts to empty and the empty
    one, migrate, enable them again."""
    return solutions.solution(
        solutions.service('h1', 'disabled'),
        solutions.service('h2', 'disabled'),
        solutions.service('h9', 'disabled'),
        solutions.migrate('a', 'h1', 'h5'), solutions.migrate('b', 'h2', 'h5'),
        solutions.migrate('c', 'h1', 'h6'),
        solutions.service('h1', 'enabled'), solutions.service('h2', 'enabled'),
        solutions.service('h9', 'enabled'))


def test_disable_then_drain_each_host_then_enable():
    planned = planner().schedule(consolidation())
    found = labelled(planned)
    assert [label for label in found] == [
        'disabled:h1', 'disabled:h2', 'disabled:h9', 'migrate:a',
        'migrate:c', 'migrate:b', 'enabled:h1', 'enabled:h2', 'enabled:h9']
    for host in ('h1', 'h2', 'h9'):
        assert found['disabled:' + host].parents == []
    disabled = ['disabled:h1', 'disabled:h2', 'disabled:h9']
    # Each host's first migration waits for every disable; the host's
    # next one for the one before it.
    assert parents_of(found, 'migrate:a') == disabled
    assert parents_of(found, 'migrate:b') == disabled
    assert parents_of(found, 'migrate:c') == ['migrate:a']
    # Every host enabled once each host's last migration is done.
    for host in ('h1', 'h2', 'h9'):
        assert parents_of(found, 'enabled:' + host) == [
            'migrate:b', 'migrate:c']


def test_service_changes_run_parallelization_at_a_time():
    found = labelled(planner(change_nova_service_state=1).schedule(
        consolidation()))
    assert parents_of(found, 'disabled:h2') == ['disabled:h1']
    assert parents_of(found, 'disabled:h9') == ['disabled:h2']
    assert parents_of(found, 'migrate:a') == ['disabled:h9']
    assert parents_of(found, 'enabled:h2') == ['enabled:h1']


def test_hosts_are_drained_parallelization_at_a_time():
    """One lane: h2's first migration waits for h1's last."""
    found = labelled(planner(migrate=1).schedule(consolidation()))
    assert parents_of(found, 'migrate:c') == ['migrate:a']
    assert parents_of(found, 'migrate:b') == ['migrate:c']
    assert parents_of(found, 'enabled:h1') == ['migrate:b']


def test_a_host_goes_to_the_least_loaded_lane():
    solution = solutions.solution(
        *[solutions.migrate('a%d' % i, 'ha') for i in range(3)],
        solutions.migrate('b', 'hb'), solutions.migrate('c', 'hc'))
    found = labelled(planner(migrate=2).schedule(solution))
    # ha (3 migrations) in one lane; hb then hc in the other.
    assert parents_of(found, 'migrate:b') == []
    assert parents_of(found, 'migrate:c') == ['migrate:b']
    assert parents_of(found, 'migrate:a2') == ['migrate:a1']
    rows = [{'uuid': p.uuid, 'parents': p.parents, 'state': 'PENDING'}
            for p in found.values()]
    assert workflow._width(rows) == 2


def test_without_migrations_enabling_follows_disabling():
    found = labelled(planner().schedule(solutions.solution(
        solutions.service('h1', 'disabled'),
        solutions.service('h1', 'enabled'))))
    assert parents_of(found, 'enabled:h1') == ['disabled:h1']


def test_migrations_alone_start_at_once():
    found = labelled(planner().schedule(solutions.solution(
        solutions.migrate('a', 'h1'), solutions.migrate('b', 'h2'))))
    assert found['migrate:a'].parents == found['migrate:b'].parents == []


@pytest.mark.parametrize('action_type', ['resize', 'nop', 'stop'])
def test_other_action_types_are_refused(action_type):
    with pytest.raises(base.UnplannableAction) as err:
        planner().schedule(solutions.solution(
            solutions.migrate('a', 'h1'), (action_type, {})))
    assert action_type in str(err.value)


def test_an_empty_solution_is_an_empty_plan():
    assert planner().schedule(solutions.solution()) == []


def test_options(config):
    assert nrc.NodeResourceConsolidationPlanner.from_conf(
        CONF).parallelization == {'change_nova_service_state': 1,
                                  'migrate': 2}
    config.config(parallelization={'migrate': 4}, group=nrc.GROUP)
    found = nrc.NodeResourceConsolidationPlanner.from_conf(CONF)
    assert found.parallelization == {'change_nova_service_state': 1,
                                     'migrate': 4}
