from watcher_ha.decision_engine.goal import base


class ClusterMaintaining(base.Goal):
    """Take compute nodes out of service for maintenance without stopping
    the servers they host. Watcher gives it no efficacy indicators."""
    name = 'cluster_maintaining'
    display_name = 'Cluster Maintaining'
