from watcher_ha.decision_engine.goal import base


class SavingEnergy(base.Goal):
    """Use less power, by powering off compute nodes that are not needed.
    Watcher gives it no efficacy indicators."""
    name = 'saving_energy'
    display_name = 'Saving Energy'
