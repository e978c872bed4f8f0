"""Loading stevedore plugins: every namespace watcher_ha defines."""

import threading

import stevedore

from watcher_ha.common import exception

GOALS = 'watcher_ha.goals'
STRATEGIES = 'watcher_ha.strategies'
SCORING_ENGINES = 'watcher_ha.scoring_engines'
PLANNERS = 'watcher_ha.planners'
ACTIONS = 'watcher_ha.actions'
COLLECTORS = 'watcher_ha.collectors'
DATASOURCES = 'watcher_ha.datasources'
# Each entry point: a callable (conf) -> [decision_engine.feed.dispatch.
# Handler], for notifications the collectors do not handle.
NOTIFICATION_HANDLERS = 'watcher_ha.notification_handlers'


class PluginLoadError(exception.WatcherHAError):
    msg_fmt = 'Plugin %(name)s of %(namespace)s failed to load: %(reason)s'


def _raise(manager, entrypoint, error):
    raise PluginLoadError(name=entrypoint.name, namespace=manager.namespace,
                          reason=error)


def load_handlers(conf):
    """The notification handlers third-party plugins provide."""
    manager = stevedore.ExtensionManager(
        NOTIFICATION_HANDLERS, invoke_on_load=False,
        on_load_failure_callback=_raise)
    return [handler for ext in manager for handler in ext.plugin(conf)]


_loaded = {}
_loading = threading.Lock()


def load_classes(namespace):
    """{entry point name: plugin class} for every plugin installed in
    ``namespace``: read from the installed entry points once per process
    (a plugin installed later counts after a restart, as with every
    OpenStack service)."""
    with _loading:
        if namespace not in _loaded:
            manager = stevedore.ExtensionManager(
                namespace, invoke_on_load=False,
                on_load_failure_callback=_raise)
            _loaded[namespace] = {ext.name: ext.plugin for ext in manager}
        return dict(_loaded[namespace])
