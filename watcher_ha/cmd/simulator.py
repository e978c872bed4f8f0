"""watcher-ha-simulator: a simulated OpenStack cloud (Keystone, Nova,
Placement, metrics) on one loopback port, emitting Nova's notifications.

    watcher-ha-simulator --scenario FILE [--port 8778] [--transport-url URL]
                         [--endpoint TYPE=URL ...]
    watcher-ha-simulator generate --hosts N --servers M --seed S --output F
    watcher-ha-simulator import-cluster --cluster FILE --output F
"""

import argparse
import signal
import sys

from cheroot import wsgi

from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator

DEFAULT_PORT = 8778


def _serve(args):
    try:
        spec = scenario.load(args.scenario)
        sim = simulator.Simulator(spec, transport_url=args.transport_url)
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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ('generate', 'import-cluster'):
        parser = argparse.ArgumentParser(prog='watcher-ha-simulator ' +
                                         argv[0])
        if argv[0] == 'generate':
            parser.add_argument('--hosts', type=int, required=True)
            parser.add_argument('--servers', type=int, required=True)
            parser.add_argument('--seed', type=int, default=42)
            parser.set_defaults(func=_generate)
        else:
            parser.add_argument('--cluster', required=True,
                                help='a reference cluster JSON file')
            parser.set_defaults(func=_import)
        parser.add_argument('--output', required=True)
        args = parser.parse_args(argv[1:])
    else:
        parser = argparse.ArgumentParser(
            prog='watcher-ha-simulator',
            description='A simulated OpenStack cloud for watcher_ha.')
        parser.add_argument('--scenario', required=True)
        parser.add_argument('--host', default='127.0.0.1')
        parser.add_argument('--port', type=int, default=DEFAULT_PORT)
        parser.add_argument('--transport-url',
                            help='where to send Nova notifications, e.g. '
                                 'rabbit://guest:guest@127.0.0.1:5672/')
        parser.add_argument('--config-file', help='(reserved) oslo.config '
                                                  'file with [simulator]')
        parser.add_argument('--threads', type=int, default=16)
        parser.add_argument(
            '--endpoint', type=_endpoint, action='append', default=[],
            metavar='TYPE=URL',
            help='register a service of TYPE at URL (all three '
                 'interfaces) in the simulated Keystone\'s catalog, e.g. '
                 'infra-optim=http://127.0.0.1:9322 and '
                 '\'instance-ha=http://127.0.0.1:9322/instance-ha/v1/'
                 '$(project_id)s\' for watcher-ha-api; repeatable')
        parser.set_defaults(func=_serve)
        args = parser.parse_args(argv)
    args.func(args)


if __name__ == '__main__':
    main()
