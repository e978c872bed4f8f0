"""watcher-ha: what watcher_ha adds to Watcher's API, from a terminal.

    watcher-ha [auth options] what-if PLAN [--all-hosts] [--rows N]
               [--format table|json]

It logs in as the watcher CLI does (keystoneauth's options and their
``OS_*`` variables: ``OS_AUTH_URL``, ``OS_USERNAME``, ``OS_PASSWORD``,
``OS_PROJECT_NAME``, ``OS_USER_DOMAIN_NAME``, ``OS_PROJECT_DOMAIN_NAME``;
not clouds.yaml), finds the ``infra-optim`` endpoint in the
catalog (``--os-interface``, ``--os-region-name``) unless
``--os-endpoint`` names it (with ``--os-auth-type none``, for an API
without Keystone), and asks with our microversion family
(``watcher-ha 1.3``).
"""

import argparse
import json
import os
import sys

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading

from watcher_ha.cmd import what_if_table
from watcher_ha.service import service

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
    what_if.set_defaults(func=_what_if)
    return parser


def _session(args):
    try:
        auth = loading.load_auth_from_argparse_arguments(args)
    except ks_exc.MissingRequiredOptions as err:
        raise Refused('%s (give them as options or OS_* variables, as for '
                      'the watcher CLI)' % err)
    return loading.load_session_from_argparse_arguments(args, auth=auth)


def get(args, path):
    """The JSON the Watcher API answers ``GET path``; Refused with its
    message for an error."""
    session = _session(args)
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
    answer = get(args, path)
    if args.format == 'json':
        json.dump(answer, out, indent=2, sort_keys=True)
        out.write('\n')
        return
    for line in what_if_table.render(answer, rows=args.rows):
        out.write(line + '\n')


def main(argv=None, out=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser(argv).parse_args(argv)
    try:
        args.func(args, out or sys.stdout)
    except Refused as err:
        sys.exit('watcher-ha %s: %s' % (args.command, err))
