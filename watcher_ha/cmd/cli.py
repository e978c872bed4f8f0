"""watcher-ha: what watcher_ha adds to Watcher's API, from a terminal.

    watcher-ha [auth options] what-if PLAN [--all-hosts] [--rows N]
               [--format table|json]
               [--replay [--bandwidth-mb-per-s MB] [--evacuate-seconds S]
                [...timings] [--poll-interval S] [--workers N]
                [--replay-speedup N]]

It logs in as the watcher CLI does (keystoneauth's options and their
``OS_*`` variables: ``OS_AUTH_URL``, ``OS_USERNAME``, ``OS_PASSWORD``,
``OS_PROJECT_NAME``, ``OS_USER_DOMAIN_NAME``, ``OS_PROJECT_DOMAIN_NAME``;
not clouds.yaml), finds the ``infra-optim`` endpoint in the
catalog (``--os-interface``, ``--os-region-name``) unless
``--os-endpoint`` names it (with ``--os-auth-type none``, for an API
without Keystone), and asks with our microversion family
(``watcher-ha 1.3``). With ``--replay`` it also runs the plan on a
simulated copy of the cloud, for its timing (cmd/replay.py), and still
only reads the API.
"""

import argparse
import json
import os
import sys

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading

from watcher_ha.cmd import what_if_table
from watcher_ha.conf import CONF
from watcher_ha.service import service
from watcher_ha.simulator import scenario

SERVICE_TYPE = 'infra-optim'
VERSION = 'infra-optim 1.7, watcher-ha 1.3'


class Refused(Exception):
    """The API, or Keystone, said no: the message says why."""


def _env(name, default=None):
    return os.environ.get(name, default)


def _parser(argv):
    parser = argparse.ArgumentParser(
        prog='watcher-ha',
        description='What watcher_ha adds to the Watcher API: the what-if '
                    'of an action plan.')
    parser.add_argument('--version', action='version',
                        version=service.version())
    loading.register_session_argparse_arguments(parser)
    loading.register_auth_argparse_arguments(parser, argv,
                                             default='password')
    parser.add_argument('--os-interface', default=_env('OS_INTERFACE',
                                                       'public'),
                        help='Which endpoint of the catalog (default: '
                             'env[OS_INTERFACE] or public).')
    parser.add_argument('--os-region-name', default=_env('OS_REGION_NAME'),
                        help='Default: env[OS_REGION_NAME].')
    if '--os-endpoint' not in parser._option_string_actions:
        # The auth plugins without a catalog (none, admin_token) have
        # theirs: the same URL.
        parser.add_argument(
            '--os-endpoint', default=_env('OS_ENDPOINT'),
            help='The Watcher API\'s URL, instead of the catalog\'s '
                 '(default: env[OS_ENDPOINT]).')
    commands = parser.add_subparsers(title='subcommands', dest='command',
                                     metavar='SUBCOMMAND', required=True)
    what_if = commands.add_parser(
        'what-if', help='project an action plan that has not started onto '
                        'a copy of the compute model; changes nothing',
        description='What a RECOMMENDED action plan would do: per host '
                    'before and after, its worst moment, efficacy '
                    'indicators, each failover segment\'s room, the '
                    'disruption budget it takes.')
    what_if.add_argument('plan', help='the action plan\'s UUID')
    what_if.add_argument('--all-hosts', action='store_true',
                         help='also the hosts the plan leaves alone')
    what_if.add_argument('--rows', type=int, default=what_if_table.ROWS,
                         help='hosts shown at most (default %(default)s)')
    what_if.add_argument('--format', choices=('table', 'json'),
                         default='table')
    _replay_arguments(what_if)
    what_if.set_defaults(func=_what_if)
    return parser


# The simulated cloud's timings (scenario.TIMINGS) as the replay's
# options: (key, help).
TIMING_OPTIONS = (
    ('bandwidth_mb_per_s', 'a live or cold migration moves the server\'s '
                           'RAM at this many MB a second'),
    ('max_concurrent_live_migrations', 'live migrations one source host '
                                       'runs at once, 0: no limit (Nova\'s '
                                       '[DEFAULT] option)'),
    ('evacuate_seconds', 'an evacuation\'s rebuild'),
    ('power_seconds', 'an Ironic power action at a BMC'),
    ('boot_seconds', 'a host powered on until its nova-compute reports'),
    ('shelve_seconds', 'a shelve\'s snapshot upload'),
    ('reboot_seconds', 'a server\'s reboot'),
)


def _replay_arguments(what_if):
    group = what_if.add_argument_group(
        'replay', 'Run the plan on a simulated copy of the cloud (seeded '
                  'from GET /v1/data_model) with the applier\'s action '
                  'plugins, and print how long it took. It takes as long '
                  'as the plan would. Nothing but GETs reaches the API; '
                  'nothing reaches the cloud or the database.')
    group.add_argument('--replay', action='store_true',
                       help='replay the plan, for its timing')
    for key, what in TIMING_OPTIONS:
        default = scenario.TIMINGS[key]
        group.add_argument('--' + key.replace('_', '-'), dest=key,
                           type=type(default), default=default,
                           help='%s (default %%(default)s)' % what)
    group.add_argument('--poll-interval', type=float,
                       default=CONF.watcher_applier.poll_interval,
                       help='seconds between two looks of an action at what '
                            'it waits for, as [watcher_applier] '
                            'poll_interval (default %(default)s)')
    group.add_argument('--workers', type=int,
                       default=CONF.watcher_applier.workers,
                       help='actions run at once at least, when the plan '
                            'allows, as [watcher_applier] workers '
                            '(default %(default)s)')
    group.add_argument('--replay-speedup', type=float, default=1.0,
                       metavar='N',
                       help='run the simulated cloud and the applier\'s '
                            'waits N times faster, the timing still told '
                            'in the cloud\'s time; at most --poll-interval '
                            '/ 0.1 (default %(default)s)')




def _session(args):
    try:
        auth = loading.load_auth_from_argparse_arguments(args)
    except ks_exc.MissingRequiredOptions as err:
        raise Refused('%s (give them as options or OS_* variables, as for '
                      'the watcher CLI)' % err)
    return loading.load_session_from_argparse_arguments(args, auth=auth)


def reader(args):
    """``read(path)``: the JSON the Watcher API answers ``GET path``,
    through one session; Refused with its message for an error."""
    session = _session(args)
    return lambda path: _get(args, session, path)


def _get(args, session, path):
    try:
        resp = session.get(
            path, raise_exc=False,
            endpoint_filter={'service_type': SERVICE_TYPE,
                             'interface': args.os_interface,
                             'region_name': args.os_region_name},
            endpoint_override=args.os_endpoint,
            headers={'OpenStack-API-Version': VERSION,
                     'Accept': 'application/json'})
    except ks_exc.ClientException as err:
        raise Refused(str(err))
    if resp.status_code >= 400:
        raise Refused('%s (HTTP %d)' % (_fault(resp), resp.status_code))
    return resp.json()


def _fault(resp):
    """The message of a Watcher API error body, or the body."""
    try:
        body = resp.json()
        return json.loads(body['error_message'])['faultstring']
    except (ValueError, KeyError, TypeError):
        return resp.text.strip()[:500] or resp.reason


def _what_if(args, out):
    path = '/v1/action_plans/%s/what_if' % args.plan
    if args.all_hosts:
        path += '?all_hosts=true'
    read = reader(args)
    answer = read(path)
    if args.replay:
        answer['replay'] = _replay(args, read, answer)
    if args.format == 'json':
        json.dump(answer, out, indent=2, sort_keys=True)
        out.write('\n')
        return
    lines = what_if_table.render(answer, rows=args.rows)
    if args.replay:
        lines += what_if_table.render_replay(answer['replay'])
    for line in lines:
        out.write(line + '\n')


def _replay(args, read, answer):
    # The applier, its plugins and a simulator: loaded for a replay only
    # (they double the time a what-if takes to start).
    from watcher_ha.cmd import replay
    fastest = replay.fastest(args.poll_interval)
    if not 1 <= args.replay_speedup <= fastest:
        raise Refused('--replay-speedup must be from 1 to %g with '
                      '--poll-interval %g: the applier looks every %g s at '
                      'least' % (fastest, args.poll_interval,
                                 replay.LEAST_POLL_INTERVAL))
    return replay.run(read, args.plan, answer, replay.Settings(
        {key: getattr(args, key) for key, _ in TIMING_OPTIONS},
        args.poll_interval, args.workers, args.replay_speedup))


def main(argv=None, out=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser(argv).parse_args(argv)
    try:
        args.func(args, out or sys.stdout)
    except Refused as err:
        sys.exit('watcher-ha %s: %s' % (args.command, err))
