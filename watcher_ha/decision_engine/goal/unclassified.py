from watcher_ha.decision_engine.goal import base


class Unclassified(base.Goal):
    """For a strategy whose aim matches no other goal yet, e.g. one under
    development; it has no efficacy indicators."""
    name = 'unclassified'
    display_name = 'Unclassified'
