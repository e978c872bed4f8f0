"""The datasources ``[watcher_datasources] datasources`` names, loaded
once when a decision engine starts: a name that no installed plugin has
stops the start, rather than failing every audit later."""

from oslo_log import log

from watcher_ha.common import plugins

LOG = log.getLogger(__name__)

# Watcher's datasources that watcher_ha does not have. Watcher 17's
# default (its sample's "datasources = gnocchi,grafana,aetos") names
# grafana: a Watcher configuration file must not stop the engine for it,
# as Watcher itself only uses grafana once [grafana_client] is set up
# (ignored here, see conf/watcher_ignored.py). Passed over with a warning.
WATCHER_ONLY = frozenset({'grafana'})


class UnknownDatasource(plugins.PluginLoadError):
    msg_fmt = ('[watcher_datasources] datasources names %(names)s, which '
               'no installed plugin provides (installed: %(installed)s); '
               'fix the list or install the plugin')


def load(conf):
    """The configured datasources, in order, each built with ``conf``."""
    names = list(conf.watcher_datasources.datasources)
    installed = plugins.installed_names(plugins.DATASOURCES)
    skipped = [name for name in names
               if name in WATCHER_ONLY and name not in installed]
    if skipped:
        LOG.warning('[watcher_datasources] datasources: %s passed over: '
                    'Watcher\'s, which watcher_ha does not have (installed: '
                    '%s)', ', '.join(skipped), ', '.join(sorted(installed)))
    names = [name for name in names if name not in skipped]
    unknown = [name for name in names if name not in installed]
    if unknown:
        raise UnknownDatasource(names=', '.join(unknown),
                                installed=', '.join(sorted(installed))
                                or 'none')
    loaded = plugins.load_named(plugins.DATASOURCES, names)
    return [loaded[name](conf) for name in names]
