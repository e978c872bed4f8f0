from watcher_ha.decision_engine.goal import base


class NoisyNeighbor(base.Goal):
    """Move a low-priority server whose last-level cache use slows down a
    high-priority one on the same node. Watcher gives it no efficacy
    indicators."""
    name = 'noisy_neighbor'
    display_name = 'Noisy Neighbor'
