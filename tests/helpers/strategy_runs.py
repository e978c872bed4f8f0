"""What the strategy tests share: running a strategy on a cluster
snapshot as the decision engine does (its parameters checked against
its spec and completed with the defaults), and reading its migrations
back."""

from watcher_ha.common import parameters as parameters_mod
from watcher_ha.common import plugins


def run(strategy_class, cluster, audit_metrics=None, protected=(), **given):
    """The solution of ``strategy_class`` for ``cluster`` with the audit
    parameters ``given``; ``audit_metrics``: an AuditMetrics (see
    tests.static_metrics; not ``metrics``, a parameter of some
    strategies); ``protected``: the hosts kept for failover or
    maintenance."""
    goal = plugins.load_classes(plugins.GOALS)[strategy_class.goal]
    strategy = strategy_class(goal)
    strategy.protected_hosts = frozenset(protected)
    checked = parameters_mod.check(strategy_class.parameters_spec, given)
    return strategy.execute({}, checked, models={'compute': cluster},
                            metrics=audit_metrics)


def migrations(solution):
    """(server name, source, destination, migration type) of each
    migrate action, in the plan's order."""
    return [(a.input_parameters['resource_name'],
             a.input_parameters['source_node'],
             a.input_parameters.get('destination_node'),
             a.input_parameters['migration_type'])
            for a in solution.actions if a.action_type == 'migrate']
