from watcher_ha.decision_engine.goal import base


class Dummy(base.Goal):
    """A goal for testing the pipeline end to end; it optimises nothing and
    has no efficacy indicators."""
    name = 'dummy'
    display_name = 'Dummy goal'
