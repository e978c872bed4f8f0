from watcher_ha.decision_engine.goal import base


class AirflowOptimization(base.Goal):
    """Improve the airflow through the compute nodes. Watcher gives it no
    efficacy indicators."""
    name = 'airflow_optimization'
    display_name = 'Airflow Optimization'
