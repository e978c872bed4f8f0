"""The planners the strategies use, built once when a decision engine
starts.

Each strategy names the planner of its solutions (Strategy.planner, or
[watcher_decision_engine] planner if it names none), as in Watcher: those
are loaded, and no other. A planner named that no installed plugin
provides stops the start, rather than failing every audit of that
strategy later.
"""

from watcher_ha.common import plugins


class UnknownPlanner(plugins.PluginLoadError):
    msg_fmt = ('%(who)s plans with the planner %(name)s, which no '
               'installed plugin provides (namespace watcher_ha.planners, '
               'installed: %(installed)s); install it or %(fix)s')


class Planners:
    """{name: planner}, and which one plans a strategy's solutions."""

    def __init__(self, planners, default='weight'):
        self.planners = planners
        self.default = default

    def for_strategy(self, strategy):
        return self.planners[strategy.planner or self.default]


def load(conf, strategies):
    """Planners built from ``conf``; ``strategies``: the installed
    strategy classes ({name: class}), whose planners must be installed."""
    installed = plugins.installed_names(plugins.PLANNERS)
    default = conf.watcher_decision_engine.planner
    _check(default, installed, '[watcher_decision_engine] planner',
           'change the option')
    used = [default]
    for name, strategy in sorted(strategies.items()):
        if strategy.planner:
            _check(strategy.planner, installed, 'Strategy %s' % name,
                   'uninstall the strategy')
            used.append(strategy.planner)
    return Planners({name: cls.from_conf(conf) for name, cls in
                     plugins.load_named(plugins.PLANNERS, used).items()},
                    default)


def _check(name, installed, who, fix):
    if name not in installed:
        raise UnknownPlanner(who=who, name=name, fix=fix,
                             installed=', '.join(sorted(installed)) or 'none')
