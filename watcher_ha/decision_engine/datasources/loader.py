"""The datasources ``[watcher_datasources] datasources`` names, loaded
once when a decision engine starts: a name that no installed plugin has
stops the start, rather than failing every audit later."""

from watcher_ha.common import plugins


class UnknownDatasource(plugins.PluginLoadError):
    msg_fmt = ('[watcher_datasources] datasources names %(names)s, which '
               'no installed plugin provides (installed: %(installed)s); '
               'fix the list or install the plugin')


def load(conf):
    """The configured datasources, in order, each built with ``conf``."""
    names = list(conf.watcher_datasources.datasources)
    installed = plugins.load_classes(plugins.DATASOURCES)
    unknown = [name for name in names if name not in installed]
    if unknown:
        raise UnknownDatasource(names=', '.join(unknown),
                                installed=', '.join(sorted(installed))
                                or 'none')
    return [installed[name](conf) for name in names]
