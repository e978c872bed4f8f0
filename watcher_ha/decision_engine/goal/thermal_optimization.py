from watcher_ha.decision_engine.goal import base


class ThermalOptimization(base.Goal):
    """Even out the temperature of the compute nodes. Watcher gives it no
    efficacy indicators."""
    name = 'thermal_optimization'
    display_name = 'Thermal Optimization'
