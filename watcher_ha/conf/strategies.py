"""[watcher_strategies.<strategy>] options: what a strategy reads from
the configuration rather than from an audit's parameters (Watcher's
groups and names)."""

from oslo_config import cfg

from watcher_ha.conf import prose

BASIC_GROUP = cfg.OptGroup(
    'watcher_strategies.basic',
    title='The basic (server consolidation) strategy')

BASIC_OPTS = [
    cfg.BoolOpt(
        'check_optimize_metadata', default=False,
        help=prose.paragraph("""Leave in place the servers whose metadata says
            "optimize": false (or holds an "optimize" value that is not a
            boolean): a node that holds one is not emptied. As Watcher's option
            of that name.""")),
]

STORAGE_CAPACITY_BALANCE_GROUP = cfg.OptGroup(
    'watcher_strategies.storage_capacity_balance',
    title='The storage_capacity_balance strategy')

STORAGE_CAPACITY_BALANCE_OPTS = [
    cfg.ListOpt(
        'ex_pools', default=['local_vstorage'],
        help=prose.paragraph("""Pools the strategy leaves alone: it neither
            moves volumes off them nor onto them. Each is a pool's name within
            its backend (the part after "#" of host@backend#pool, as Watcher's
            option of that name) or a whole host@backend#pool.""")),
]


def register_opts(conf):
    conf.register_group(BASIC_GROUP)
    conf.register_opts(BASIC_OPTS, group=BASIC_GROUP)
    conf.register_group(STORAGE_CAPACITY_BALANCE_GROUP)
    conf.register_opts(STORAGE_CAPACITY_BALANCE_OPTS,
                       group=STORAGE_CAPACITY_BALANCE_GROUP)


def list_opts():
    return [(BASIC_GROUP.name, BASIC_OPTS),
            (STORAGE_CAPACITY_BALANCE_GROUP.name,
             STORAGE_CAPACITY_BALANCE_OPTS)]
