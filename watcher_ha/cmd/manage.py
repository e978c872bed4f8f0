"""watcher-ha-db-manage: upgrade, downgrade, version, purge, sync,
import-watcher, import-masakari."""

import sys

from oslo_config import cfg

from watcher_ha.common import context
from watcher_ha.db import installed_plugins
from watcher_ha.db import engine as db_engine
from watcher_ha.db import foreign_db
from watcher_ha.db import masakari_import
from watcher_ha.db import migration
from watcher_ha.db import purge as db_purge
from watcher_ha.db import watcher_import
from watcher_ha.service import service

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
    installed_plugins.sync(context.admin_context(), prune=CONF.command.prune)
    print('Goals, strategies and scoring engines synced from plugins%s.'
          % (', and those no plugin provides removed'
             if CONF.command.prune else ''))


def do_import_watcher():
    command = CONF.command
    service.check_schema()
    tallies = _import(lambda: watcher_import.run(
        context.admin_context(), command.from_url, force=command.force,
        dry_run=command.dry_run))
    _print_tallies(tallies, command.dry_run)


def do_import_masakari():
    command = CONF.command
    service.check_schema()
    tallies = _import(lambda: masakari_import.run(
        context.admin_context(), command.from_url, dry_run=command.dry_run))
    _print_tallies(tallies, command.dry_run)
    left = [uuid for uuid, why in tallies['notifications'].skipped
            if why.startswith('still ')]
    if left:
        print('%d notification(s) Masakari had not finished with were left '
              'there (listed above): let its engine finish them and run the '
              'import again to copy them as history; if it cannot, report '
              'each failure that still stands to watcher-ha (openstack '
              'notification create).' % len(left))


def _import(run):
    """The tallies of ``run()``, or exit saying why nothing was copied."""
    try:
        return run()
    except (foreign_db.CannotImport, watcher_import.WatcherStillRunning,
            masakari_import.Conflicts) as err:
        sys.exit(str(err))
    except db_engine.DB_ERRORS as err:
        # One transaction: whatever it wrote is rolled back.
        sys.exit('The import failed, and copied nothing: %s' % err)


def _print_tallies(tallies, dry_run):
    print('%-20s %10s %8s %8s' % ('', 'would copy' if dry_run
                                   else 'copied', 'present', 'skipped'))
    for table, tally in tallies.items():
        print('%-20s %10d %8d %8d' % (table, tally.copied, tally.present,
                                      len(tally.skipped)))
    for table, tally in tallies.items():
        for uuid, why in tally.skipped:
            print('skipped %s %s: %s' % (table[:-1], uuid, why))
    if dry_run:
        print('Dry run: nothing was written.')


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

    parser = subparsers.add_parser(
        'import-watcher',
        help='Copy audit templates, audits and action plans (with their '
             'actions and efficacy indicators) from an OpenStack Watcher '
             '17 database; rows already here (same UUID) are left alone. '
             'See doc/source/migrating_from_watcher.rst.')
    _import_arguments(parser, 'Watcher')
    parser.add_argument('--force', action='store_true',
                        help="Import even though Watcher's services table "
                             "shows a decision engine or applier up.")
    parser.set_defaults(func=do_import_watcher)

    parser = subparsers.add_parser(
        'import-masakari',
        help='Copy failover segments and hosts (with their UUIDs), and the '
             'notifications Masakari finished with (with their server '
             'moves), from an OpenStack Masakari 22 database; refused, '
             'copying nothing, if a segment or host is here with the same '
             'UUID or name but other content. See '
             'doc/source/migrating_from_masakari.rst.')
    _import_arguments(parser, 'Masakari')
    parser.set_defaults(func=do_import_masakari)


def _import_arguments(parser, service):
    parser.add_argument('--from', dest='from_url', required=True,
                        metavar='URL',
                        help="The %s database's SQLAlchemy URL (its "
                             "[database] connection); only read." % service)
    parser.add_argument('--dry-run', action='store_true',
                        help='Report what would be copied, write nothing.')


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
