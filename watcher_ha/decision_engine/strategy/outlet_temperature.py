"""outlet_temperature: move servers off compute nodes whose exhaust air
is too hot.

Watcher's strategy of that name reads ``host_outlet_temp`` of the
enabled, up nodes; a node at or above ``threshold`` is hot, the others
receive. It moves one active server, live, from the hottest node to the
coolest with room, one per audit, because it cannot forecast how many
moves bring a node under the threshold.

Here every hot node, hottest first, gives one active server (its
largest that fits somewhere: the most heat off it) to the coolest node
with room that has not received one in this plan yet, so a continuous
audit treats all the hot nodes in one round rather than one per round;
``max_migrations=1`` gives Watcher's single move. Destinations and room
come from Moves (Placement's count; never a disabled, down, protected
node, nor one out of the server's pinned zone).
"""

from watcher_ha.decision_engine.strategy import moves as moves_mod
from watcher_ha.decision_engine.strategy import parameter_specs
from watcher_ha.decision_engine.strategy import thermal


class OutletTemperature(thermal.HotNodesStrategy):
    name = 'outlet_temperature'
    display_name = 'Outlet temperature based strategy'
    goal = 'thermal_optimization'
    metric = 'host_outlet_temp'
    threshold = 'threshold'
    parameters_spec = moves_mod.parameters_spec({
        'threshold': parameter_specs.number(
            'temperature threshold for migration', 35.0),
        'period': parameter_specs.period(30),
        'granularity': parameter_specs.granularity(),
    })
