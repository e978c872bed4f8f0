"""watcher-ha-db-manage: upgrade, downgrade, version, purge, sync."""

import sys

from oslo_config import cfg

from watcher_ha.common import context
from watcher_ha.common import service
from watcher_ha.db import catalog
from watcher_ha.db import migration
from watcher_ha.db import purge as db_purge

CONF = cfg.CONF


def _revision(default=None):
    """The revision given as an argument, or with Watcher's --revision."""
    return (CONF.command.revision_option or CONF.command.revision
            or default)


def do_upgrade():
    migration.upgrade(_revision('head'))
    print('Database is at revision %s.' % migration.version())


def do_downgrade():
    revision = _revision()
    if revision is None:
        sys.exit('downgrade needs the revision to go back to (--revision '
                 'REVISION; "base" removes every table).')
    migration.downgrade(revision)
    print('Database is at revision %s.' % migration.version())


def do_version():
    current = migration.version()
    print('current: %s\nhead: %s' % (current, migration.head()))


def do_purge():
    dry_run = CONF.command.dry_run
    counts = db_purge.purge(context.admin_context(),
                            CONF.command.age_in_days, dry_run=dry_run)
    for table, count in counts.items():
        print('%s: %d row(s) %s' % (table, count, 'would be deleted'
                                    if dry_run else 'deleted'))


def do_sync():
    catalog.sync(context.admin_context(), prune=CONF.command.prune)
    print('Goals, strategies and scoring engines synced from plugins%s.'
          % (', and those no plugin provides removed'
             if CONF.command.prune else ''))


def add_command_parsers(subparsers):
    parser = subparsers.add_parser(
        'upgrade', help='Upgrade the schema (to the latest by default).')
    _revision_arguments(parser)
    parser.set_defaults(func=do_upgrade)

    parser = subparsers.add_parser(
        'downgrade', help='Downgrade the schema to a revision ("base" '
                          'removes every table).')
    _revision_arguments(parser)
    parser.set_defaults(func=do_downgrade)

    parser = subparsers.add_parser(
        'version', help='Print the current and the latest revision.')
    parser.set_defaults(func=do_version)

    parser = subparsers.add_parser(
        'purge', help='Delete archived (deleted) rows older than N days.')
    parser.add_argument('-d', '--age-in-days', type=int, default=30,
                        help='Only rows deleted at least this many days '
                             'ago (default 30; 0 purges all).')
    parser.add_argument('--dry-run', action='store_true',
                        help='Count what would be deleted, delete nothing.')
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


def _revision_arguments(parser):
    parser.add_argument('revision', nargs='?',
                        help='An alembic revision (or "head", "base").')
    parser.add_argument('--revision', dest='revision_option',
                        metavar='REVISION',
                        help='The same, as Watcher\'s watcher-db-manage '
                             'takes it.')


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
