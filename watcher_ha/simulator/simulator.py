"""One simulated cloud behind one loopback port: Keystone, Nova,
Placement, Ironic (the compute hosts' power), Cinder, Heat, metrics and
the simulator's own API, under the path prefixes devstack uses."""

from watcher_ha.simulator import admin_api
from watcher_ha.simulator import clock as clock_mod
from watcher_ha.simulator import faults as faults_mod
from watcher_ha.simulator import guests
from watcher_ha.simulator import metrics
from watcher_ha.simulator import notifications
from watcher_ha.simulator import scenario as scenario_mod
from watcher_ha.simulator import web
from watcher_ha.simulator.cinder import api as cinder_api
from watcher_ha.simulator.cinder import notifications as cinder_notifications
from watcher_ha.simulator.heat import api as heat_api
from watcher_ha.simulator.heat import engine as heat_engine
from watcher_ha.simulator.heat import notifications as heat_notifications
from watcher_ha.simulator.ironic import api as ironic_api
from watcher_ha.simulator.ironic import baremetal
from watcher_ha.simulator.keystone import api as identity_api
from watcher_ha.simulator.nova import api as compute_api
from watcher_ha.simulator.nova import hosts
from watcher_ha.simulator.placement import api as placement_api


# Timeline keys naming a host, and what happens to it (see nova/hosts.py).
TIMELINE_HOST_EVENTS = {'fail_host': hosts.lose_power,
                        'crash_host': hosts.crash,
                        'partition_host': hosts.partition,
                        'recover_host': hosts.recover}


class Simulator:

    def __init__(self, spec, transport_url=None, transport=None,
                 cinder_transport=None, clock=None, heat_transport=None,
                 messaging_config_files=()):
        """Nova's notifications go to ``transport`` (a notification
        transport made by notifications.nova_transport), or to one made
        for ``transport_url``; with neither, nowhere. Cinder's go to
        ``cinder_transport`` (made by cinder_notifications.
        cinder_transport: Cinder's exchange is not Nova's), Heat's to
        ``heat_transport`` (heat_notifications.heat_transport), or each
        to one made for ``transport_url``; with neither, nowhere. Every
        service tells the time by ``clock`` (real time when None; a
        test's clock.FakeClock). The transports made for
        ``transport_url`` take their messaging options from
        ``messaging_config_files``, as the services' own configuration
        files give them."""
        self.spec = spec
        self.clock = clock or clock_mod.REAL
        self.faults = faults_mod.Faults(seed=spec.get('seed', 0))
        self.cloud = scenario_mod.build(spec, clock=self.clock)
        self.cloud.faults = self.faults
        self.cloud.storage.faults = self.faults
        self.ironic = baremetal.Ironic(self.cloud, self.faults)
        self.activations = guests.Activations(
            self.faults, self.clock, secret=spec.get('activation_secret'))
        self.notifier = None
        if transport is None and transport_url:
            transport = notifications.nova_transport(
                transport_url, messaging_config_files)
        if transport is not None:
            self.notifier = notifications.Notifier(transport, self.faults,
                                                   self.clock)
            self.cloud.events = self.notifier
        if cinder_transport is None and transport_url:
            cinder_transport = cinder_notifications.cinder_transport(
                transport_url, messaging_config_files)
        self.cinder_notifier = None
        if cinder_transport is not None:
            self.cinder_notifier = cinder_notifications.Notifier(
                cinder_transport, self.faults, self.clock)
            self.cloud.storage.events = self.cinder_notifier
        if heat_transport is None and transport_url:
            heat_transport = heat_notifications.heat_transport(
                transport_url, messaging_config_files)
        self.heat_notifier = None
        if heat_transport is not None:
            self.heat_notifier = heat_notifications.Notifier(
                heat_transport, self.faults, self.clock)
        self.heat = heat_engine.Heat(
            self.cloud, self.heat_notifier,
            float(spec.get('heat_poll_seconds', heat_engine.POLL_SECONDS)))
        self.identity = identity_api.IdentityAPI(self)
        self.apps = {
            '/identity': self.identity,
            '/compute': compute_api.ComputeAPI(self),
            '/placement': placement_api.PlacementAPI(self),
            '/baremetal': ironic_api.BaremetalAPI(self),
            '/volume': cinder_api.BlockStorageAPI(self),
            '/heat-api': heat_api.OrchestrationAPI(self),
            '/metrics': metrics.MetricsApp(self),
            '/simulator': admin_api.AdminAPI(self),
        }
        self._timeline = []

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        for prefix, app in self.apps.items():
            if path == prefix or path.startswith(prefix + '/'):
                return app(environ, start_response)
        resp = web.fault(404, 'Nothing is served at %s; try /identity/v3, '
                              '/compute/v2.1, /placement, /baremetal/v1, '
                              '/volume/v3, /heat-api/v1, /metrics or '
                              '/simulator/state' % path)
        return resp(environ, start_response)

    def start_timeline(self):
        """Run the scenario's timed events (host failures, faults)."""
        for entry in self.spec.get('timeline') or ():
            self._timeline.append(self.clock.later(float(entry['at']),
                                                   self._happen, entry))

    def _happen(self, entry):
        for key, happen in TIMELINE_HOST_EVENTS.items():
            if key in entry:
                happen(self.cloud, entry[key])
        if 'faults' in entry:
            self.faults.configure(entry['faults'])

    def stop(self):
        for timer in self._timeline + list(self.cloud.timers):
            timer.cancel()
