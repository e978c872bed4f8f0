from watcher_ha.decision_engine.goal import base
from watcher_ha.decision_engine.goal import efficacy


class WorkloadOptimization(base.Goal):
    """Free allocated capacity for higher-priority (on-demand) servers by
    preempting low-priority (preemptible) ones: Watcher's approved spec
    preemptible-instances (openstack/watcher-specs, 2026.2), which
    Watcher 17 does not have. The spec gives its indicators and no
    global efficacy."""
    name = 'workload_optimization'
    display_name = 'Workload Optimization'
    watcher_spec = 'preemptible-instances'
    efficacy_specification = (
        efficacy.count('preempted_instances_count',
                       'The number of instances preempted by the plan.'),
        efficacy.count('vcpu_freed',
                       'The number of vCPUs the preempted instances\' '
                       'flavors free.'),
        efficacy.count('mem_mb_freed',
                       'The amount of RAM (MB) the preempted instances\' '
                       'flavors free.'),
        efficacy.count('disk_gb_freed',
                       'The amount of disk (GB) the preempted instances\' '
                       'flavors free.'),
    )
