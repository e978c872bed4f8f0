"""[watcher_strategies.<strategy>] options: what a strategy reads from
the configuration rather than from an audit's parameters (Watcher's
groups and names)."""

from oslo_config import cfg

BASIC_GROUP = cfg.OptGroup(
    'watcher_strategies.basic',
    title='The basic (server consolidation) strategy')

BASIC_OPTS = [
    cfg.BoolOpt(
        'check_optimize_metadata', default=False,
        help='Leave in place the servers whose metadata says "optimize": '
             'false (or holds an "optimize" value that is not a boolean): '
             'a node that holds one is not emptied. As Watcher\'s option '
             'of that name.'),
]


def register_opts(conf):
    conf.register_group(BASIC_GROUP)
    conf.register_opts(BASIC_OPTS, group=BASIC_GROUP)


def list_opts():
    return [(BASIC_GROUP.name, BASIC_OPTS)]
