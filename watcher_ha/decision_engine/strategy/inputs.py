"""What a strategy reads before it plans: the compute data model and its
metrics, each metric in one bulk call for all the hosts or servers.

A strategy cannot plan on a metric no host (or no server) has data for:
an empty answer means the datasource does not collect it or the period
is too short, and the audit fails saying so rather than planning on
nothing. Some hosts or servers without data are the strategy's to
handle, as Watcher does in each.
"""

from watcher_ha.decision_engine.strategy import base


def compute_model(models, strategy):
    """The audit's compute data model (a ClusterState)."""
    cluster = (models or {}).get('compute')
    if cluster is None:
        raise base.StrategyError('%s needs the compute data model'
                                 % strategy)
    return cluster


def require_metrics(metrics, strategy, reads):
    """``metrics``, failing when the audit has none (no datasource is
    configured); ``reads`` names what the strategy reads, for the
    message."""
    if metrics is None:
        raise base.StrategyError(
            '%s reads %s: configure [watcher_datasources] datasources'
            % (strategy, reads))
    return metrics


def of_hosts(metrics, metric, nodes, hint='', **options):
    """{hostname: value} of host ``metric`` for ``nodes``; ``options``
    go to AuditMetrics.hosts (period, granularity, aggregate)."""
    values = metrics.hosts(metric, nodes, **options)
    if nodes and not values:
        raise _no_data('compute node', metric, len(nodes), options, hint)
    return values


def of_servers(metrics, metric, servers, hint='', **options):
    """{uuid: value} of server ``metric`` for ``servers``; as of_hosts."""
    values = metrics.instances(metric, servers, **options)
    if servers and not values:
        raise _no_data('server', metric, len(servers), options, hint)
    return values


def _no_data(what, metric, asked, options, hint):
    return base.StrategyError(
        'no %s has %s data over the last %s s (%d asked)%s: check that '
        'the datasource collects it, or give a longer period'
        % (what, metric, options.get('period'), asked,
           ' ' + hint if hint else ''))
