"""[watcher_planners.<planner>] options: how each planner orders and
spreads a strategy's actions. Watcher's group and option names (its
planner loader names the group after the entry point); the
``parallelization`` of the workload_stabilization and
node_resource_consolidation planners is watcher_ha's own, see
doc/source/planners.rst."""

from oslo_config import cfg
from oslo_config import types

from watcher_ha.conf import prose

WEIGHT = 'watcher_planners.weight'
WORKLOAD_STABILIZATION = 'watcher_planners.workload_stabilization'
NODE_RESOURCE_CONSOLIDATION = 'watcher_planners.node_resource_consolidation'

WEIGHT_WEIGHTS = {
    # A host-failure recovery: the failed host is fenced before any of
    # its servers is evacuated: powered off (when it is) before Nova is
    # told it is down.
    'power_off_host': 95,
    'force_host_down': 90,
    'claim_reserved_hosts': 85,
    # Below stop (35, Watcher's): two types of one weight would share
    # one step of the plan.
    'evacuate': 34,
    'settle_recovery': 5,
    # An application's failover: its failed active stopped (or its host
    # fenced, above), evicted, its volumes moved, the standby activated,
    # the failed member replaced; each after the one before.
    'quiesce_server': 98,
    'evict_member': 80,
    'move_volume_attachment': 78,
    'activate': 77,
    'replace_member': 76,
    # The recovery of a server (alone in its plan), and of a process: its
    # host on maintenance before its compute service is disabled, as
    # Masakari does.
    'restart_server': 45,
    'set_host_maintenance': 55,
    'turn_host_to_acpi_s3_state': 10,
    # Watcher's: powering nodes on or off comes last.
    'change_node_power_state': 9,
    'resize': 20,
    'stop': 35,
    # Not in Watcher: deletes, then shelves, before the stops and
    # migrations (a server gone or offloaded needs neither); between stop
    # (35) and sleep (40), each type its own step.
    'delete': 37,
    'shelve': 36,
    'migrate': 30,
    'sleep': 40,
    'change_nova_service_state': 50,
    'nop': 70,
    'volume_migrate': 60,
}
WEIGHT_PARALLELIZATION = {
    'power_off_host': 1,
    'force_host_down': 1,
    'claim_reserved_hosts': 1,
    # A failed host's servers come back 50 at a time (Masakari: 3), a
    # dense host's hundred in two waves of rebuilds: Nova caps new builds
    # per compute (max_concurrent_builds), not evacuations' rebuilds, and
    # these spread over the reserved hosts claimed, or the cloud.
    'evacuate': 50,
    'settle_recovery': 1,
    'quiesce_server': 1,
    'evict_member': 1,
    # An application's volumes attach to its new active all at once.
    'move_volume_attachment': 10,
    'activate': 1,
    'replace_member': 1,
    'restart_server': 10,
    'set_host_maintenance': 1,
    'turn_host_to_acpi_s3_state': 2,
    'resize': 2,
    'stop': 2,
    'delete': 2,
    'shelve': 2,
    'migrate': 2,
    'sleep': 1,
    'change_nova_service_state': 1,
    'nop': 1,
    'change_node_power_state': 2,
    # Watcher's.
    'volume_migrate': 2,
}

# Watcher's: the order in which the planner takes the action types
# (heaviest first) is also what an action may wait for: a resize waits
# for its server's migrations only because migrations weigh more.
WORKLOAD_STABILIZATION_WEIGHTS = {
    'turn_host_to_acpi_s3_state': 0,
    'resize': 1,
    'migrate': 2,
    'sleep': 3,
    'change_nova_service_state': 4,
    'nop': 5,
}
# The weight planner's widths for the same types.
WORKLOAD_STABILIZATION_PARALLELIZATION = {
    kind: WEIGHT_PARALLELIZATION[kind]
    for kind in WORKLOAD_STABILIZATION_WEIGHTS}
NODE_RESOURCE_CONSOLIDATION_PARALLELIZATION = {
    'change_nova_service_state': WEIGHT_PARALLELIZATION[
        'change_nova_service_state'],
    'migrate': WEIGHT_PARALLELIZATION['migrate'],
}

_WIDTHS = types.Dict(value_type=types.Integer(min=1))


def _parallelization(default, more=''):
    return cfg.Opt(
        'parallelization', type=_WIDTHS, default=default,
        help='How many actions of each type may run at the same time '
             '(the types given here change or add to the defaults; '
             'others run one at a time). The applier runs a plan with as '
             'many threads as its widest step needs, [watcher_applier] '
             'workers at least, so this is what bounds the load a plan '
             'puts on the cloud.' + more)


OPTS = {
    WEIGHT: [
        cfg.Opt('weights', type=types.Dict(value_type=types.Integer()),
                default=WEIGHT_WEIGHTS,
                help=prose.paragraph("""Weight of each action type: heavier
                    types are scheduled first, each type once the one before
                    has finished. An action type missing here cannot be
                    planned.""")),
        _parallelization(WEIGHT_PARALLELIZATION),
    ],
    WORKLOAD_STABILIZATION: [
        cfg.Opt('weights', type=types.Dict(value_type=types.Integer()),
                default=WORKLOAD_STABILIZATION_WEIGHTS,
                help=prose.paragraph("""Weight of each action type: the planner
                    takes the heavier types first, and an action waits only for
                    the earlier ones that concern it (a resize for the
                    migrations of its server, a host's power-off for the
                    migrations and resizes off that host). An action type
                    missing here cannot be planned.""")),
        _parallelization(WORKLOAD_STABILIZATION_PARALLELIZATION,
                         ' Not in Watcher, whose applier bounds it with '
                         'its thread pool.'),
    ],
    NODE_RESOURCE_CONSOLIDATION: [
        _parallelization(NODE_RESOURCE_CONSOLIDATION_PARALLELIZATION,
                         ' For migrate: how many hosts are emptied at the '
                         'same time, each one migration after another. Not '
                         'in Watcher, whose applier bounds it with its '
                         'thread pool.'),
    ],
}


def register_opts(conf):
    for group, opts in OPTS.items():
        conf.register_opts(opts, group=group)


def list_opts():
    return list(OPTS.items())
