"""watcher-ha-db-manage: upgrade, downgrade, version, purge, sync."""

import sys

from oslo_config import cfg

from watcher_ha.common import context
from watcher_ha.common import service
from watcher_ha.db import catalog
from watcher_ha.db import migration
from watcher_ha.db import purge as db_purge

CONF = cfg.CONF


def do_upgrade():
    migration.upgrade(CONF.command.revision)
    print('Database is at revision %s.' % migration.version())


def do_downgrade():
    migration.downgrade(CONF.command.revision)
    print('Database is at revision %s.' % migration.version())


def do_version():
    current = migration.version()
    print('current: %s\nhead: %s' % (current, migration.head()))


def do_purge():
    counts = db_purge.purge(context.admin_context(),
                            CONF.command.age_in_days)
    for table, count in counts.items():
        print('%s: %d row(s) deleted' % (table, count))


def do_sync():
    catalog.sync(context.admin_context(), prune=CONF.command.prune)
    print('Goals, strategies and scoring engines synced from plugins%s.'
          % (', and those no plugin provides removed'
             if CONF.command.prune else ''))


def add_command_parsers(subparsers):
    parser = subparsers.add_parser(
        'upgrade', help='Upgrade the schema (to the latest by default).')
    parser.add_argument('revision', nargs='?', default='head')
    parser.set_defaults(func=do_upgrade)

    parser = subparsers.add_parser(
        'downgrade', help='Downgrade the schema to a revision ("base" '
                          'removes every table).')
    parser.add_argument('revision')
    parser.set_defaults(func=do_downgrade)

    parser = subparsers.add_parser(
        'version', help='Print the current and the latest revision.')
    parser.set_defaults(func=do_version)

    parser = subparsers.add_parser(
        'purge', help='Delete archived (deleted) rows older than N days.')
    parser.add_argument('--age-in-days', type=int, default=30,
                        help='Only rows deleted at least this many days '
                             'ago (default 30; 0 purges all).')
    parser.set_defaults(func=do_purge)

    parser = subparsers.add_parser(
        'sync', help='Sync goals, strategies and scoring engines from the '
                     'installed plugins.')
    parser.add_argument('--prune', action='store_true',
                        help='Also remove goals, strategies and scoring '
                             'engines that no installed plugin provides '
                             'and nothing refers to. Run it once every '
                             'host has the same plugins.')
    parser.set_defaults(func=do_sync)


COMMAND_OPT = cfg.SubCommandOpt('command', title='Commands',
                                handler=add_command_parsers,
                                help='Available commands')


def main(argv=None):
    CONF.register_cli_opt(COMMAND_OPT)
    service.prepare_service(sys.argv[1:] if argv is None else argv,
                            program='watcher-ha-db-manage')
    if CONF.command.name == 'purge' and CONF.command.age_in_days < 0:
        sys.exit('--age-in-days must be 0 or more.')
    CONF.command.func()
