"""Loading stevedore plugins: every namespace watcher_ha defines.

Each plugin is imported at most once per process. Goals, strategies,
scoring engines and actions are a catalog: every installed one is offered
(as in Watcher, whose API lists every installed strategy), so they are
loaded whole (``load_classes``). Planners, datasources and collectors
are chosen by the configuration: only those named are imported
(``load_named``), and a name no installed plugin has is refused before
anything is imported (``installed_names`` reads the entry points
without importing them).
"""

import importlib.metadata
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
_named = {}
_loading = threading.Lock()


def installed_names(namespace):
    """The names of the plugins installed in ``namespace``, sorted,
    without importing any."""
    return sorted({entry.name for entry in
                   importlib.metadata.entry_points(group=namespace)})


def load_named(namespace, names):
    """{name: plugin class} of the plugins ``names`` of ``namespace``
    only, each imported once per process; PluginLoadError if one is not
    installed or fails to import."""
    names = list(dict.fromkeys(names))
    with _loading:
        missing = [name for name in names
                   if (namespace, name) not in _named]
        if missing:
            manager = stevedore.NamedExtensionManager(
                namespace, missing, invoke_on_load=False, name_order=True,
                on_load_failure_callback=_raise,
                on_missing_entrypoints_callback=lambda absent: _absent(
                    namespace, absent))
            for ext in manager:
                _named[namespace, ext.name] = ext.plugin
        return {name: _named[namespace, name] for name in names}


def _absent(namespace, names):
    raise PluginLoadError(
        name=', '.join(sorted(names)), namespace=namespace,
        reason='not installed (installed: %s)' % (
            ', '.join(installed_names(namespace)) or 'none'))


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
