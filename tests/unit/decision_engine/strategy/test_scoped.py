"""Every server-moving strategy on a scoped model, as the auditor hands
it over (decision_engine/scope.py): nothing outside the scope, and no
server the scope leaves out, is ever moved, disabled or filled, while
inside it the strategy still finds its work."""

import pytest

from tests import static_metrics
from tests import strategy_clusters as c
from tests.helpers import strategy_runs
from watcher_ha.common import audit_scope
from watcher_ha.common import plugins
from watcher_ha.decision_engine import scope
from watcher_ha.decision_engine.model import elements

RACK_1 = ('hot-1', 'idle-1', 'cool-1')
RACK_2 = ('hot-2', 'idle-2', 'cool-2')
KEPT = 'uuid-hot-1-vm0'
SCOPE = [{'host_aggregates': [{'name': 'rack-1'}]},
         {'exclude': [{'instances': [{'uuid': KEPT}]}]}]

# Strategies that plan no server moves of their own choosing.
NOT_MOVING = ('active_standby', 'actuator', 'dummy', 'dummy_with_resize',
              'dummy_with_scorer',
              'host_maintenance', 'host_recovery', 'instance_recovery',
              'process_recovery', 'saving_energy',
              # Moves volumes, on the storage model: test_storage_scope.
              'storage_capacity_balance',
              # Removes servers: test_workload_preemption scopes it.
              'workload_preemption')
# Those that must find work inside the scope of this cluster: each has a
# hot host with busy servers, an idle one and a cool one to receive.
FINDS_WORK = ('basic', 'node_resource_consolidation', 'outlet_temperature',
              'uniform_airflow', 'vm_workload_consolidation',
              'workload_balance', 'workload_stabilization')


def cluster():
    nodes, servers = [], []
    for rack, names in (('rack-1', RACK_1), ('rack-2', RACK_2)):
        for hostname in names:
            nodes.append(c.node(hostname, vcpus=16, memory_mb=65536,
                                aggregates=frozenset([rack])))
            busy = hostname.startswith('hot')
            for index in range(4 if busy else 1):
                servers.append(c.server('%s-vm%d' % (hostname, index),
                                        hostname, vcpus=2, memory_mb=4096))
    aggregates = [elements.Aggregate(name='rack-1', id=1),
                  elements.Aggregate(name='rack-2', id=2)]
    return c.build(nodes, servers, aggregates)


def metrics(snapshot):
    """Static values: hot hosts busy, warm and loud; the others quiet."""
    values = {}
    for hostname in snapshot.nodes:
        hot = hostname.startswith('hot')
        for metric, (busy, quiet) in {
                'host_cpu_usage': (80.0, 5.0),
                'host_ram_usage': (24 * 2 ** 20, 2 ** 20),
                'host_outlet_temp': (45.0, 25.0),
                'host_inlet_temp': (22.0, 20.0),
                'host_airflow': (600.0, 250.0),
                'host_power': (300.0, 150.0)}.items():
            values.setdefault(metric, {})[hostname] = busy if hot else quiet
    for uuid, server in snapshot.instances.items():
        hot = server.host.startswith('hot')
        for metric, (busy, quiet) in {
                'instance_cpu_usage': (90.0, 5.0),
                'instance_ram_usage': (3500.0, 500.0),
                'instance_ram_allocated': (4096.0, 4096.0),
                'instance_root_disk_size': (20.0, 20.0),
                'instance_l3_cache_usage': (2.0 ** 20, 2.0 ** 20)}.items():
            values.setdefault(metric, {})[uuid] = busy if hot else quiet
    return values


def moving_strategies():
    return sorted(name for name in plugins.load_classes(plugins.STRATEGIES)
                  if name not in NOT_MOVING)


@pytest.mark.parametrize('name', moving_strategies())
def test_a_scoped_plan_stays_inside_its_scope(name):
    whole = cluster()
    scoped = scope.apply(whole, audit_scope.check(SCOPE))
    assert sorted(scoped.nodes) == sorted(RACK_1)
    strategy = plugins.load_classes(plugins.STRATEGIES)[name]
    solution = strategy_runs.run(strategy, scoped,
                                 static_metrics.audit_metrics(metrics(whole)))
    for action in solution.actions:
        parameters = action.input_parameters
        if action.action_type == 'migrate':
            assert parameters['resource_id'] != KEPT, action
            assert parameters['source_node'] in RACK_1, action
            assert parameters.get('destination_node', RACK_1[0]) in \
                RACK_1, action
        elif action.action_type == 'change_nova_service_state':
            assert parameters['resource_name'] in RACK_1, action
    if name in FINDS_WORK:
        assert strategy_runs.migrations(solution), name
