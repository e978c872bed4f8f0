"""[watcher_cluster_data_model_collectors.<name>]: the options of each
cluster data model collector (Watcher's group names). The groups of the
collectors watcher_ha ships are registered here; a third-party collector
registers its own group, with these options and its own, when loaded."""

from oslo_config import cfg

from watcher_ha.conf import prose

GROUP_PREFIX = 'watcher_cluster_data_model_collectors.'
BUILT_IN = ('compute', 'storage')

COMMON_OPTS = [
    cfg.IntOpt('period', default=3600, min=10, mutable=True,
               help=prose.paragraph("""Seconds between two full resyncs of this
                   model from its source; the first runs when the engine
                   starts.""")),
]


def group_name(name):
    return GROUP_PREFIX + name


def register_opts(conf):
    for name in BUILT_IN:
        conf.register_opts(COMMON_OPTS, group=group_name(name))


def list_opts():
    return [(group_name(name), COMMON_OPTS) for name in BUILT_IN]
