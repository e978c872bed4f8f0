"""A simulated cloud inside another program: watcher-ha-all-in-one
([simulator] scenario), or the what-if's replay (``serving``).

In watcher-ha-all-in-one, its Nova notifications go out on an in-process
bus that it shares with the decision engine of the same process, so a
what-if run (or the demo) needs no message broker: the engine's model
follows the simulated cloud as it would follow Nova. Cinder's go out on
a bus of their own (``cinder_transport``: another exchange), for a
listener of Cinder's notifications in the same process.
"""

import contextlib
import ipaddress

from oslo_log import log
from oslo_service import service

from watcher_ha.service import wsgi_server
from watcher_ha.simulator import notifications
from watcher_ha.simulator import scenario
from watcher_ha.simulator import simulator
from watcher_ha.simulator.cinder import notifications as cinder_notifications

LOG = log.getLogger(__name__)

# Keystone, Nova and Placement calls of one engine and one applier, plus an
# operator's CLI: a few at a time.
THREADS = 8


def api_url(conf, address):
    """The URL the all-in-one's API is reached at: ``[api]
    public_endpoint``, or the address it is bound to (loopback when it
    listens on every address)."""
    if conf.api.public_endpoint:
        return conf.api.public_endpoint.rstrip('/')
    host, port = address[:2]
    with contextlib.suppress(ValueError):   # a name, not an address
        if ipaddress.ip_address(host).is_unspecified:
            host = '127.0.0.1'
    return 'http://%s:%d' % ('[%s]' % host if ':' in host else host, port)


def register_endpoints(catalog, url, conf):
    """The API's two services in the cloud's catalog, as devstack
    registers them, so that clients and Horizon find them by type."""
    catalog.register('infra-optim', url)
    catalog.register('instance-ha', '%s%s/v1/$(project_id)s' % (
        url, conf.instance_ha.api_path_prefix))


@contextlib.contextmanager
def serving(spec, threads=THREADS, clock=None):
    """(the Simulator of ``spec``, its URL) while in the block: served on
    a free loopback port by ``threads`` threads of this process, its
    services telling the time by ``clock`` (real time when None), its
    notifications sent nowhere. Stopped on leaving, its timers
    cancelled."""
    cloud = simulator.Simulator(spec, clock=clock)
    sock = wsgi_server.bind('127.0.0.1', 0, group='simulator')
    server = wsgi_server.WSGIService('watcher-ha-simulator', lambda: cloud,
                                     sock, threads)
    server.start()
    try:
        yield cloud, 'http://127.0.0.1:%d' % server.port
    finally:
        server.stop()
        server.wait()
        sock.close()
        cloud.stop()


class EmbeddedCloud(service.ServiceBase):

    def __init__(self, conf, api_address):
        """``api_address``: the (host, port) the API is bound to, for the
        catalog of the embedded Keystone."""
        options = conf.simulator
        try:
            spec = scenario.load(options.scenario)
        except (OSError, scenario.ScenarioError, ValueError) as err:
            raise SystemExit('Cannot load [simulator] scenario %s: %s'
                             % (options.scenario, err))
        # The engine listens on this very transport object: the in-process
        # driver delivers only between users of one transport.
        self.nova_transport = notifications.nova_transport('fake://')
        self.cinder_transport = cinder_notifications.cinder_transport(
            'fake://')
        self.cloud = simulator.Simulator(
            spec, transport=self.nova_transport,
            cinder_transport=self.cinder_transport)
        register_endpoints(self.cloud.identity.catalog,
                           api_url(conf, api_address), conf)
        # Bound now, so that the engine's first resync finds it listening.
        sock = wsgi_server.bind(options.host, options.port,
                                group='simulator')
        self._server = wsgi_server.WSGIService(
            'watcher-ha-simulator', lambda: self.cloud, sock, THREADS)

    @property
    def port(self):
        return self._server.port

    def start(self):
        self.cloud.start_timeline()
        self._server.start()
        LOG.info('Simulated cloud: %d hosts, %d servers, identity at '
                 'http://%s:%d/identity/v3', len(self.cloud.cloud.hosts),
                 len(self.cloud.cloud.servers), *self._server.address)

    def stop(self, graceful=False):
        self._server.stop()
        self.cloud.stop()

    def wait(self):
        self._server.wait()

    def reset(self):
        pass
