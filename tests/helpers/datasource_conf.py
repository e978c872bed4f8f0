"""The configuration the datasource tests give a datasource: a ConfigOpts
of its own (tests/private_conf.py, so nothing reaches the global CONF),
with no metric map file and no pause between a query's retries."""

from tests import private_conf


def datasource_conf(tmp_path, retries, **groups):
    """That ConfigOpts, a query tried ``retries`` times, with ``groups``
    ({group: {option: value}}) set too."""
    conf = private_conf.private_conf()
    conf.set_override('metric_map_path', str(tmp_path / 'absent.yaml'),
                      group='watcher_decision_engine')
    conf.set_override('query_interval', 0, group='watcher_datasources')
    conf.set_override('query_max_retries', retries,
                      group='watcher_datasources')
    for group, options in groups.items():
        for name, value in options.items():
            conf.set_override(name, value, group=group)
    return conf
