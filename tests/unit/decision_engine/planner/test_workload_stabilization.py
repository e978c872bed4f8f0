"""The workload_stabilization planner: heaviest type first, an action
waits only for what concerns it, each type in lanes."""

import pytest

from tests.helpers import solutions
from watcher_ha.applier import workflow
from watcher_ha.conf import CONF
from watcher_ha.conf import planner as planner_conf
from watcher_ha.decision_engine.planner import base
from watcher_ha.decision_engine.planner import workload_stabilization as ws


def planner(weights=None, **widths):
    return ws.WorkloadStabilizationPlanner(
        weights or planner_conf.WORKLOAD_STABILIZATION_WEIGHTS,
        dict(planner_conf.WORKLOAD_STABILIZATION_PARALLELIZATION, **widths))


def labelled(planned):
    """{'migrate:a': action, 'resize:a': ...} keyed by type and the
    resource each action acts on."""
    return {'%s:%s' % (p.action_type, p.input_parameters.get(
        'resource_id', p.input_parameters.get('message'))): p
        for p in planned}


def parents_of(found, label):
    names = {action.uuid: name for name, action in found.items()}
    return sorted(names[uuid] for uuid in found[label].parents)


def test_types_come_heaviest_first_in_the_strategys_order():
    planned = planner().schedule(solutions.solution(
        ('turn_host_to_acpi_s3_state', {'resource_id': 'h1'}),
        ('resize', {'resource_id': 'a', 'flavor': 'small'}),
        solutions.migrate('b', 'h1'), solutions.migrate('a', 'h2'),
        ('sleep', {'duration': 1}),
        solutions.service('h1', 'disabled'),
        ('nop', {'message': 'x'})))
    assert [(p.action_type, p.input_parameters.get('resource_id'))
            for p in planned] == [
        ('nop', None), ('change_nova_service_state', 'h1'),
        ('sleep', None), ('migrate', 'b'), ('migrate', 'a'),
        ('resize', 'a'), ('turn_host_to_acpi_s3_state', 'h1')]


def test_migrations_wait_for_no_other_type_only_for_their_lane():
    """Unlike the weight planner's, a type does not wait for the type
    before it: the migrations start with the nop."""
    found = labelled(planner(migrate=2).schedule(solutions.solution(
        ('nop', {'message': 'x'}), solutions.migrate('a', 'h1'),
        solutions.migrate('b', 'h1'), solutions.migrate('c', 'h2'))))
    assert found['nop:x'].parents == []
    assert parents_of(found, 'migrate:a') == []
    assert parents_of(found, 'migrate:b') == []
    assert parents_of(found, 'migrate:c') == ['migrate:a']


def test_a_resize_waits_for_its_servers_migration():
    found = labelled(planner(resize=5, migrate=5).schedule(
        solutions.solution(
            ('resize', {'resource_id': 'a', 'flavor': 'big'}),
            ('resize', {'resource_id': 'z', 'flavor': 'big'}),
            solutions.migrate('a', 'h1'), solutions.migrate('b', 'h1'))))
    assert parents_of(found, 'resize:a') == ['migrate:a']
    assert parents_of(found, 'resize:z') == []


def test_a_host_power_off_waits_for_what_leaves_the_host():
    found = labelled(planner(resize=5, migrate=5).schedule(
        solutions.solution(
            solutions.migrate('a', 'h1'), solutions.migrate('b', 'h1'),
            solutions.migrate('c', 'h2'),
            ('resize', {'resource_id': 'a', 'flavor': 'big'}),
            ('resize', {'resource_id': 'c', 'flavor': 'big'}),
            ('turn_host_to_acpi_s3_state', {'resource_id': 'h1'}))))
    # resize:a already waits for migrate:a: no edge of its own; h2's
    # migration and resize do not concern h1.
    assert parents_of(found, 'turn_host_to_acpi_s3_state:h1') == [
        'migrate:b', 'resize:a']


def test_a_host_power_off_waits_for_resizes_it_cannot_place():
    """A server the plan does not migrate may be on the host."""
    found = labelled(planner().schedule(solutions.solution(
        ('resize', {'resource_id': 'x', 'flavor': 'big'}),
        ('turn_host_to_acpi_s3_state', {'resource_id': 'h1'}))))
    assert parents_of(found, 'turn_host_to_acpi_s3_state:h1') == [
        'resize:x']


def test_the_weights_decide_what_may_be_waited_for():
    """As in Watcher: a resize weighed above migrate is planned first,
    so it cannot wait for its server's migration."""
    weights = dict(planner_conf.WORKLOAD_STABILIZATION_WEIGHTS, resize=9)
    found = labelled(planner(weights).schedule(solutions.solution(
        solutions.migrate('a', 'h1'),
        ('resize', {'resource_id': 'a', 'flavor': 'big'}))))
    assert [p.action_type for p in found.values()] == ['resize', 'migrate']
    assert found['resize:a'].parents == []


def test_parallelization_bounds_the_plans_width():
    planned = planner(migrate=3).schedule(solutions.solution(
        *[solutions.migrate(str(i), 'h%d' % (i % 4)) for i in range(10)]))
    rows = [{'uuid': p.uuid, 'parents': p.parents, 'state': 'PENDING'}
            for p in planned]
    assert workflow._width(rows) == 3


def test_a_type_without_a_weight_cannot_be_planned():
    with pytest.raises(base.UnplannableAction) as err:
        planner().schedule(solutions.solution(('stop', {'resource_id': 'a'})))
    assert 'stop' in str(err.value)
    assert '[watcher_planners.workload_stabilization] weights' in str(
        err.value)


def test_an_empty_solution_is_an_empty_plan():
    assert planner().schedule(solutions.solution()) == []


def test_options(config):
    # Watcher's defaults.
    assert ws.WorkloadStabilizationPlanner.from_conf(CONF).weights == {
        'turn_host_to_acpi_s3_state': 0, 'resize': 1, 'migrate': 2,
        'sleep': 3, 'change_nova_service_state': 4, 'nop': 5}
    config.config(parallelization={'migrate': 4}, group=ws.GROUP)
    config.config(weights={'migrate': 1, 'stop': 2}, group=ws.GROUP)
    found = ws.WorkloadStabilizationPlanner.from_conf(CONF)
    assert found.weights == {'migrate': 1, 'stop': 2}
    assert found.parallelization['migrate'] == 4
    assert found.parallelization['resize'] == 2
