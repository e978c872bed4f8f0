"""watcher-ha-status upgrade check: what this release needs of the
deployment, checked before its daemons are (re)started.

Each check reads the configuration files as the daemons would, talks to
what they talk to, and changes nothing. oslo.upgradecheck prints the
table (or ``--json``) and exits 0 when all pass, 1 on a warning, 2 on a
failure.
"""

import os
import sys
import urllib.parse

import sqlalchemy as sa
from keystoneauth1 import discover
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
# Registers [keystone_authtoken], as the API does.
from keystonemiddleware import auth_token  # noqa: F401
from oslo_config import cfg
from oslo_upgradecheck import upgradecheck

from watcher_ha.cloud import clients
from watcher_ha.conf import unused
from watcher_ha.db import engine
from watcher_ha.db import migration
from watcher_ha.service import coordination
from watcher_ha.service import healthcheck
from watcher_ha.service import service

CONF = cfg.CONF

Code = upgradecheck.Code
Result = upgradecheck.Result


def _without_password(url):
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(':%s@' % parts.password, ':***@', 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def check_database(conf):
    """The database answers and its schema is this release's."""
    url = sa.engine.make_url(conf.database.connection)
    where = url.render_as_string(hide_password=True)
    if (url.get_backend_name() == 'sqlite' and url.database
            and url.database != ':memory:'
            and not os.path.exists(url.database)):
        # SQLite would create it empty: say what creates it instead.
        return Result(Code.FAILURE,
                      'the database %s does not exist: run '
                      '"watcher-ha-db-manage upgrade" first' % where)
    bind = sa.create_engine(url)
    try:
        migration.check_current(bind)
        current = migration.version(bind)
    except migration.SchemaNotCurrent as err:
        return Result(Code.FAILURE, str(err))
    except engine.DB_ERRORS as err:
        return Result(Code.FAILURE, 'cannot reach the database %s: %s'
                      % (where, str(err).splitlines()[0]))
    finally:
        bind.dispose()
    if current != migration.head():
        return Result(Code.WARNING,
                      'the database %s is at schema revision %s, which this '
                      'release (%s) does not know: a newer release migrated '
                      'it' % (where, current, migration.head()))
    return Result(Code.SUCCESS, 'the database %s is at schema revision %s'
                  % (where, current))


def check_api(conf, group, service, needed, release=None):
    """``group``'s service (``service``, e.g. "Nova") advertises ``needed``
    ("X.Y") among its microversions; ``release`` names the first release
    of the service that serves it."""
    problem = clients.configured(conf, group)
    if problem:
        return Result(Code.FAILURE, problem)
    try:
        data = clients.adapter(conf, group).get_endpoint_data()
    except (ks_exc.ClientException, TypeError) as err:
        # keystoneauth's TypeError: adapter options it refuses.
        return Result(Code.FAILURE, 'cannot reach %s ([%s]): %s'
                      % (service, group, err))
    if data is None or data.max_microversion is None:
        return Result(Code.FAILURE,
                      '%s ([%s]) advertises no microversion; watcher_ha '
                      'needs %s' % (service, group, needed))
    served = '%s at %s serves microversions %s to %s' % (
        service, data.url, discover.version_to_string(data.min_microversion),
        discover.version_to_string(data.max_microversion))
    if data.max_microversion < discover.normalize_version_number(needed):
        return Result(Code.FAILURE, '%s; watcher_ha needs %s%s' % (
            served, needed, ', which %s %s and later serve: upgrade %s '
            'first' % (service, release, service) if release else ''))
    return Result(Code.SUCCESS, served)


AUTHTOKEN_GROUP = 'keystone_authtoken'
# Seconds Keystone has to answer the service user's authentication.
KEYSTONE_TIMEOUT = 10
SERVICE_USER = ('auth_type = password, auth_url, username, password, '
                'project_name, user_domain_name and project_domain_name '
                '(a service user allowed to validate tokens) and '
                'www_authenticate_uri (where clients get their tokens)')


def check_api_auth(conf):
    """With auth_strategy = keystone, the API can validate tokens: its
    service user in [keystone_authtoken] authenticates to Keystone.
    keystonemiddleware would otherwise fail every call with a 500."""
    if conf.auth_strategy != 'keystone':
        return Result(Code.SUCCESS, 'auth_strategy = %s: the API takes '
                      'requests without a token' % conf.auth_strategy)
    group = conf[AUTHTOKEN_GROUP]
    advice = ('set in [%s] %s, or set [DEFAULT] auth_strategy = noauth for '
              'a sandbox on loopback' % (AUTHTOKEN_GROUP, SERVICE_USER))
    if group.auth_type is None:
        return Result(Code.FAILURE, 'auth_strategy = keystone, but '
                      '[%s] auth_type is not set, so the API cannot '
                      'validate a token: %s' % (AUTHTOKEN_GROUP, advice))
    try:
        auth = ks_loading.load_auth_from_conf_options(conf, AUTHTOKEN_GROUP)
    except ks_exc.ClientException as err:
        return Result(Code.FAILURE, 'auth_strategy = keystone, but [%s] '
                      'is incomplete (%s): %s'
                      % (AUTHTOKEN_GROUP, err, advice))
    where = getattr(group, 'auth_url', None)
    who = getattr(group, 'username', None) or getattr(group, 'user_id',
                                                      None)
    try:
        ks_session.Session(auth=auth,
                           timeout=KEYSTONE_TIMEOUT).get_token()
    except ks_exc.ClientException as err:
        return Result(Code.FAILURE, 'the API cannot validate tokens: '
                      'Keystone at %s refused or did not answer its '
                      'service user %s of [%s]: %s'
                      % (where, who, AUTHTOKEN_GROUP, err))
    return Result(Code.SUCCESS, 'the API validates tokens with Keystone '
                  'at %s as %s' % (where, who))


# Seconds the coordination backend has to answer: redis-py retries a
# refused connection for about a minute before tooz gives up.
COORDINATION_TIMEOUT = 10


def check_coordination(conf, timeout=COORDINATION_TIMEOUT):
    """The tooz backend the daemons join answers."""
    where = _without_password(coordination.backend_url(conf))
    error = healthcheck.Probe(
        lambda: healthcheck.check_coordination(conf),
        'coordination')(timeout)
    if isinstance(error, TimeoutError):
        return Result(Code.FAILURE, 'the coordination backend %s did not '
                      'answer within %s s' % (where, timeout))
    if error is not None:
        return Result(Code.FAILURE, 'cannot reach the coordination backend '
                      '%s: %s' % (where, error))
    return Result(Code.SUCCESS, 'the coordination backend %s answers'
                  % where)


def check_unused_options(conf):
    """Nothing set in the configuration files goes unread."""
    files = unused.config_files(conf)
    if not files:
        return Result(Code.WARNING, 'no configuration file was read: '
                      'every option has its default')
    found = unused.unused_options(conf)
    if not found:
        return Result(Code.SUCCESS, 'every option set in %s is read'
                      % ', '.join(files))
    # One item per group and reason: a group of Watcher's that means
    # nothing here is one, whatever its options. (oslo.upgradecheck
    # rewraps the details: no line breaks.)
    items = {}
    for option in found:
        items.setdefault((option.group, option.why), []).append(option.name)
    return Result(Code.WARNING, 'options set that watcher_ha ignores: %s.'
                  % '; '.join('[%s] %s: %s' % (group, ', '.join(names), why)
                              for (group, why), names in items.items()))


class Checks(upgradecheck.UpgradeCommands):
    """The checks, on CONF."""

    _upgrade_checks = (
        ('Database', lambda self: check_database(CONF)),
        ('API authentication', lambda self: check_api_auth(CONF)),
        ('Nova API', lambda self: check_api(
            CONF, clients.NOVA_GROUP, 'Nova', clients.NOVA_API_VERSION,
            clients.NOVA_RELEASE)),
        ('Placement API', lambda self: check_api(
            CONF, clients.PLACEMENT_GROUP, 'Placement',
            clients.PLACEMENT_API_VERSION)),
        ('Coordination backend', lambda self: check_coordination(CONF)),
        ('Unused options', lambda self: check_unused_options(CONF)),
    )


def main(argv=None):
    """oslo.upgradecheck's main(), with --version (its main() parses the
    command line without one)."""
    upgradecheck.register_cli_options(CONF, Checks())
    CONF(sys.argv[1:] if argv is None else argv, project=service.PROJECT,
         version=service.version())
    # Where its check() reads --json from, as its main() sets it.
    upgradecheck.CONF = CONF
    return upgradecheck.run(CONF)


if __name__ == '__main__':
    sys.exit(main())
