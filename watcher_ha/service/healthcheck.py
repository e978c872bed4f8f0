"""``/healthcheck``: oslo.middleware's health check, without a token, for
load balancers, service managers and monitoring; and its backends
(entry points in setup.cfg), one per shared service a daemon cannot work
without:

``watcher_ha_database``
    A read of a table (db/readiness.py): "database not ready" when the
    database answers but refuses it (a Galera node outside the Primary
    component, which still answers ``SELECT 1``).
``watcher_ha_messaging``
    A cast on the process's own message bus transport (to a topic nobody
    listens on, one attempt): the connection the daemon sends with,
    credentials and virtual host included. The in-process bus of an
    all-in-one (``fake://``) is always reachable.
``watcher_ha_coordination``
    A tooz coordinator started on ``[coordination] backend_url``, its
    groups listed, stopped.

Each answers "<service> reachable", or 503 "<service> unreachable" (or
"not ready") with the error in the details (``[healthcheck]
detailed``). The API serves it beside ``/v1``; the decision engine and
the applier on their metrics port (service/metrics_server.py).
``[healthcheck] backends`` (watcher_ha/conf/healthcheck.py) chooses
them: all three by default.

A probe runs in a thread of its own and gets ``PROBE_TIMEOUT`` seconds:
a backend that does not answer (tooz's Redis driver retries a refused
connection for a minute) fails the check rather than the request. One
probe of a backend runs at a time per process: the requests that come
meanwhile wait for it, so a slow backend never piles threads up.
"""

import concurrent.futures
import os
import threading

import oslo_messaging
from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase
from tooz import coordination as tooz_coordination

from watcher_ha.common import context as watcher_context
from watcher_ha.db import readiness
from watcher_ha.service import coordination
from watcher_ha.service import rpc

PATH = '/healthcheck'
# Under the few seconds a load balancer's probe waits.
PROBE_TIMEOUT = 5.0
# Casts of the messaging probe go to this topic, which no server
# consumes: the broker drops them.
PROBE_TOPIC = 'watcher-ha-healthcheck'


class Probe:
    """``check()`` (which raises when its service fails), run in a thread
    of its own, one run at a time."""

    def __init__(self, check, name):
        self._check = check
        self._name = name
        self._lock = threading.Lock()
        self._running = None

    def _run(self, outcome):
        try:
            self._check()
        except Exception as err:  # noqa: BLE001
            outcome.set_exception(err)
        else:
            outcome.set_result(None)

    def __call__(self, timeout=None):
        """None if ``check()`` passed within ``timeout`` seconds
        (``PROBE_TIMEOUT`` by default), else what went wrong (an
        exception; TimeoutError if it did not end)."""
        timeout = PROBE_TIMEOUT if timeout is None else timeout
        with self._lock:
            if self._running is None or self._running.done():
                self._running = concurrent.futures.Future()
                # A daemon thread: one still waiting on its service holds
                # no exit.
                threading.Thread(target=self._run, args=(self._running,),
                                 name='probe-' + self._name,
                                 daemon=True).start()
            running = self._running
        try:
            running.result(timeout)
        except concurrent.futures.TimeoutError:
            return TimeoutError('did not answer within %s s' % timeout)
        except Exception as err:  # noqa: BLE001
            return err
        return None


def check_database():
    readiness.check(watcher_context.admin_context())


def check_messaging(conf):
    if oslo_messaging.TransportURL.parse(
            conf, conf.transport_url).transport == 'fake':
        # The in-process bus (an all-in-one): nothing to reach, and it
        # would keep every cast nobody consumes.
        return
    client = oslo_messaging.get_rpc_client(
        rpc.get_transport(conf), oslo_messaging.Target(topic=PROBE_TOPIC),
        serializer=rpc.ContextSerializer())
    # One attempt: the probe says how the bus is now.
    client.prepare(retry=0).cast(watcher_context.admin_context(),
                                 'healthcheck')


def check_coordination(conf):
    member = ('healthcheck-%s-%d' % (conf.host, os.getpid())).encode()
    coordinator = tooz_coordination.get_coordinator(
        coordination.backend_url(conf), member)
    coordinator.start()
    try:
        coordinator.get_groups().get()
    finally:
        coordinator.stop()


class _Backend(pluginbase.HealthcheckBaseExtension):
    """A backend that answers "``service`` reachable" while its probe
    passes."""

    service = None

    def __init__(self, oslo_conf, conf):
        super().__init__(oslo_conf, conf)
        self._probe = Probe(self.check, self.service.replace(' ', '-'))

    def check(self):
        raise NotImplementedError

    def healthcheck(self, server_port):
        error = self._probe()
        if error is not None:
            state = ('not ready' if isinstance(error, readiness.NotReady)
                     else 'unreachable')
            return pluginbase.HealthcheckResult(
                available=False, reason='%s %s' % (self.service, state),
                details='%s: %s' % (type(error).__name__, error))
        return pluginbase.HealthcheckResult(
            available=True, reason='%s reachable' % self.service)


class DatabaseHealthcheck(_Backend):
    """A read of a table; refused: "database not ready"."""

    service = 'database'

    def check(self):
        check_database()


class MessagingHealthcheck(_Backend):
    """A cast on this process's transport."""

    service = 'message bus'

    def check(self):
        check_messaging(self.oslo_conf)


class CoordinationHealthcheck(_Backend):
    """The tooz backend lists its groups."""

    service = 'coordination backend'

    def check(self):
        check_coordination(self.oslo_conf)


def application(conf):
    """The health check as a WSGI app answering whatever it is sent."""
    return healthcheck.Healthcheck(None, conf)
