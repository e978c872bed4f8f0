"""An active/standby application on the simulator, made as an operator
makes one (an anti-affinity server group, two members marked active and
standby, the active's data volumes attached through Nova), and a guest
activation endpoint that records each signed delivery."""

import contextlib
import hashlib
import hmac
import http.server
import json
import threading

from tests.functional import fixtures
from tests.functional.cloud import scenario_host

SECRET = 'activation-secret'
HOSTS = ['compute-%d' % i for i in range(4)]
DATA_VOLUMES = ('0e000000-0000-4000-8000-000000000001',
                '0e000000-0000-4000-8000-000000000002')
POOL = 'stor1@fast#p1'


def spec(power_seconds=0.2, **more):
    """Four hosts (the active's, the standby's, two free), Ironic quick,
    and two data volumes."""
    return dict({
        'power_seconds': power_seconds, 'boot_seconds': 1,
        'hosts': [scenario_host(name) for name in HOSTS],
        'servers': [],
        'storage': {
            'backends': [{'host': 'stor1', 'backend': 'fast',
                          'pools': [{'name': 'p1',
                                     'total_capacity_gb': 500}]}],
            'volumes': [{'id': volume, 'name': 'data-%d' % index,
                         'size': 10, 'pool': POOL}
                        for index, volume in enumerate(DATA_VOLUMES)]}},
        **more)


class Application:
    """The ids of an application made by ``make``."""

    def __init__(self, group, active, standby):
        self.group, self.active, self.standby = group, active, standby


def make(nova, role_key='role', volumes=DATA_VOLUMES):
    """An application of two members on compute-0 (active) and compute-1
    (standby), ``volumes`` attached to the active."""
    group = nova.server_groups.create(name='app', policy='anti-affinity')
    flavor = nova.flavors.find(name='m1.small')
    made = {}
    for role, host in (('active', HOSTS[0]), ('standby', HOSTS[1])):
        made[role] = nova.servers.create(
            'app-' + role, '155d900f-4e14-4e4c-a73d-069cbf4541e6', flavor,
            meta={role_key: role, 'app': 'db'}, nics='auto',
            availability_zone='nova:' + host,
            scheduler_hints={'group': group.id}).id
    for volume in volumes:
        nova.volumes.create_server_volume(made['active'], volume)
    return Application(group.id, made['active'], made['standby'])


class Receiver(http.server.BaseHTTPRequestHandler):
    """The guest's activation endpoint: checks each delivery's signature,
    acts on a delivery id once, answers every delivery (or, while
    ``failures`` is positive, a 503)."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers['Content-Length']))
        server = self.server
        expected = 'sha256=' + hmac.new(SECRET.encode(), body,
                                        hashlib.sha256).hexdigest()
        delivery = self.headers.get('X-Watcher-HA-Delivery')
        with server.lock:
            server.deliveries.append({
                'delivery': delivery, 'body': json.loads(body),
                'signed': hmac.compare_digest(
                    expected, self.headers.get('X-Watcher-HA-Signature',
                                               ''))})
            if server.failures > 0:
                server.failures -= 1
                status = 503
            else:
                status = 200
                if delivery not in server.acted:
                    server.acted.append(delivery)
        self.send_response(status)
        self.send_header('Content-Length', '0')
        self.end_headers()

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def activation_endpoint(failures=0):
    """(its URL, the server: ``deliveries``, ``acted``)."""
    server = http.server.ThreadingHTTPServer(
        ('127.0.0.1', fixtures.free_port()), Receiver)
    server.lock = threading.Lock()
    server.deliveries, server.acted = [], []
    server.failures = failures
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield 'http://127.0.0.1:%d/activate' % server.server_port, server
    finally:
        server.shutdown()
        server.server_close()
