"""watcher-ha-simulator: a simulated OpenStack cloud (Keystone, Nova,
Placement, metrics) on one loopback port, emitting Nova's notifications.

    watcher-ha-simulator [serve] --scenario FILE [--port 8778]
                         [--transport-url URL] [--endpoint TYPE=URL ...]
    watcher-ha-simulator generate --hosts N --servers M --seed S --output F
    watcher-ha-simulator import-cluster --cluster FILE --output F
"""

import argparse
import signal
import sys

from cheroot import wsgi

from watcher_ha.service import service
from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator

DEFAULT_PORT = 8778


def _serve(args):
    try:
        spec = scenario.load(args.scenario)
        sim = simulator.Simulator(
            spec, transport_url=args.transport_url,
            messaging_config_files=args.config_file)
        for service_type, url in args.endpoint:
            sim.identity.catalog.register(service_type, url)
    except (OSError, scenario.ScenarioError, ValueError) as err:
        sys.exit('watcher-ha-simulator: cannot load %s: %s'
                 % (args.scenario, err))
    server = wsgi.Server((args.host, args.port), sim,
                         numthreads=args.threads)
    def stop(signum, frame):
        # Leave serve() from the main thread; stopping cheroot from inside
        # a signal handler would wait on the threads it interrupts.
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    sim.start_timeline()
    server.prepare()
    print('watcher-ha-simulator: %d hosts, %d servers on http://%s:%d '
          '(identity at /identity/v3, compute at /compute/v2.1)'
          % (len(sim.cloud.hosts), len(sim.cloud.servers), args.host,
             server.bind_addr[1]), flush=True)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        sim.stop()


def _endpoint(text):
    service_type, sep, url = text.partition('=')
    if not sep or not service_type or not url.startswith(('http://',
                                                          'https://')):
        raise argparse.ArgumentTypeError(
            'expected TYPE=URL, e.g. infra-optim=http://127.0.0.1:9322, '
            'not %r' % text)
    return service_type, url


def _generate(args):
    scenario.dump(scenario.generate(args.hosts, args.servers, args.seed),
                  args.output)


def _import(args):
    scenario.dump(scenario.from_cluster(args.cluster), args.output)


def _parser():
    parser = argparse.ArgumentParser(
        prog='watcher-ha-simulator',
        description='A simulated OpenStack cloud for watcher_ha. With no '
                    'subcommand: serve.')
    parser.add_argument('--version', action='version',
                        version=service.version())
    commands = parser.add_subparsers(title='subcommands', dest='command',
                                     metavar='SUBCOMMAND')
    serve = commands.add_parser(
        'serve', help='serve the simulated cloud of a scenario file '
                      '(the default)')
    serve.add_argument('--scenario', required=True)
    serve.add_argument('--host', default='127.0.0.1')
    serve.add_argument('--port', type=int, default=DEFAULT_PORT)
    serve.add_argument('--transport-url',
                       help='where to send Nova notifications, e.g. '
                            'rabbit://guest:guest@127.0.0.1:5672/')
    serve.add_argument(
        '--config-file', action='append', default=[],
        help='an oslo.config file whose messaging options (e.g. '
             '[oslo_messaging_rabbit] rabbit_quorum_queue) the '
             'notifications are sent with, as in the configuration of '
             'the services it stands in for; repeatable')
    serve.add_argument('--threads', type=int, default=16)
    serve.add_argument(
        '--endpoint', type=_endpoint, action='append', default=[],
        metavar='TYPE=URL',
        help='register a service of TYPE at URL (all three interfaces) in '
             'the simulated Keystone\'s catalog, e.g. '
             'infra-optim=http://127.0.0.1:9322 and '
             '\'instance-ha=http://127.0.0.1:9322/instance-ha/v1/'
             '$(project_id)s\' for watcher-ha-api; repeatable')
    serve.set_defaults(func=_serve)
    generate = commands.add_parser(
        'generate', help='write a random scenario of N hosts and M servers')
    generate.add_argument('--hosts', type=int, required=True)
    generate.add_argument('--servers', type=int, required=True)
    generate.add_argument('--seed', type=int, default=42)
    generate.add_argument('--output', required=True)
    generate.set_defaults(func=_generate)
    imported = commands.add_parser(
        'import-cluster',
        help='write the scenario of a reference cluster JSON file')
    imported.add_argument('--cluster', required=True,
                          help='a reference cluster JSON file')
    imported.add_argument('--output', required=True)
    imported.set_defaults(func=_import)
    return parser, commands.choices


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    parser, commands = _parser()
    if argv and argv[0] not in commands and argv[0] not in (
            '-h', '--help', '--version'):
        # Serving needs no subcommand: ``--scenario FILE`` alone serves.
        argv.insert(0, 'serve')
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error('a subcommand or --scenario FILE is needed')
    args.func(args)


if __name__ == '__main__':
    main()
