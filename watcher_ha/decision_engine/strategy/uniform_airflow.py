"""uniform_airflow: move servers off compute nodes that blow too much
air.

Watcher's strategy of that name reads ``host_airflow`` of the enabled,
up nodes; a node at or above ``threshold_airflow`` is overloaded, the
others receive, lowest airflow first. For the overloaded node with the
most airflow it reads ``host_inlet_temp`` and ``host_power``: when both
are under their thresholds the airflow is not the servers' doing (a
hardware issue) and every server leaves the node, if the receiving nodes
have room for all of them; otherwise one active server moves, live.

Here every overloaded node, most airflow first, is treated so in one
plan (``max_migrations=1`` gives Watcher's single move), and the three
metrics are each read once for all the nodes. A node whose inlet
temperature or power is unknown is not taken for a hardware issue: one
server moves. An evacuation moves servers live if they run and cold if
they are stopped (Watcher asks a live move of all of them, which Nova
refuses for stopped ones), and leaves those Nova moves in neither way.
Each server goes to the node with the least airflow that has room and
has not received one in this plan yet. Destinations and room come from
Moves (Placement's count; never a disabled, down, protected node, nor
one out of the server's pinned zone).
"""

from watcher_ha.decision_engine.strategy import moves as moves_mod
from watcher_ha.decision_engine.strategy import parameter_specs
from watcher_ha.decision_engine.strategy import thermal


class UniformAirflow(thermal.HotNodesStrategy):
    name = 'uniform_airflow'
    display_name = 'Uniform airflow migration strategy'
    goal = 'airflow_optimization'
    metric = 'host_airflow'
    threshold = 'threshold_airflow'
    parameters_spec = moves_mod.parameters_spec({
        'threshold_airflow': parameter_specs.number(
            'airflow threshold for migration, Unit is 0.1CFM', 400.0),
        'threshold_inlet_t': parameter_specs.number(
            'inlet temperature threshold for migration decision', 28.0),
        'threshold_power': parameter_specs.number(
            'system power threshold for migration decision', 350.0),
        'period': parameter_specs.period(
            300, parameter_specs.CEILOMETER_PERIOD),
        'granularity': parameter_specs.granularity(),
    })

    def relief(self, metrics, cluster, hot, parameters):
        """Watcher's: a node with a hardware issue is emptied if the
        cool nodes have room for all its servers; any other (or one
        they cannot all leave) gives one active server."""
        faulty = self._hardware_issues(metrics, cluster, hot, parameters)

        def relieve(plan, coolest, source):
            if not (source in faulty
                    and thermal.move_all(plan, coolest, source)):
                thermal.move_one(plan, coolest, source)
        return relieve

    @staticmethod
    def _hardware_issues(metrics, cluster, overloaded, parameters):
        """The overloaded nodes whose inlet temperature and power are
        both under their thresholds."""
        nodes = [cluster.node(hostname) for hostname in overloaded]
        window = {'period': parameters['period'],
                  'granularity': parameters['granularity']}
        inlet = metrics.hosts('host_inlet_temp', nodes, **window)
        power = metrics.hosts('host_power', nodes, **window)
        return {hostname for hostname in overloaded
                if hostname in inlet and hostname in power
                and inlet[hostname] < parameters['threshold_inlet_t']
                and power[hostname] < parameters['threshold_power']}
