"""A ConfigOpts with watcher_ha's options that shares nothing with the
global CONF.

oslo.config keeps an option's overrides and defaults in its group, and a
group registered from the same OptGroup object on several ConfigOpts is
one group for all of them (register_group copies it shallowly): a
ConfigOpts filled by watcher_ha.conf.register_opts sees what other tests
set on CONF. Groups registered by name are each ConfigOpts' own.
"""

from oslo_config import cfg

from watcher_ha.conf import clients
from watcher_ha.conf import database
from watcher_ha.conf import opts


def private_conf(argv=()):
    """A fresh ConfigOpts, parsed from ``argv`` (no default files)."""
    conf = cfg.ConfigOpts()
    for group, group_opts in opts.list_opts():
        name = getattr(group, 'name', group)
        if name in clients.SERVICE_TYPES:
            continue    # Below, with their service types.
        conf.register_opts(group_opts,
                           group=None if name == 'DEFAULT' else name)
    clients.register_opts(conf)
    database.register_opts(conf)
    conf(list(argv), project='watcher-ha', default_config_files=[])
    return conf
