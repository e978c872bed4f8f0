"""The simulator's own API (``/simulator``): its state, faults to
inject (host failures, failing migrations, failing or slow calls, lost or
late notifications, unreachable BMCs), and the load of a server, changed
as a workload would change it."""

import numbers

from watcher_ha.simulator import scenario
from watcher_ha.simulator import web
from watcher_ha.simulator.heat import state as heat_state
from watcher_ha.simulator.nova import hosts

# POST /simulator/hosts/{name}/{event}: what happens to the host.
HOST_EVENTS = {'fail': hosts.lose_power, 'crash': hosts.crash,
               'partition': hosts.partition, 'recover': hosts.recover}


def _iso(moment):
    return None if moment is None else moment.isoformat()


class AdminAPI(web.Service):
    prefix = '/simulator'
    routes = web.route_table('''
        GET   /state                 state
        GET   /faults                get_faults
        PUT   /faults                set_faults
        POST  /hosts/{name}/{event}  host_event
        PUT   /servers/{uuid}/load   set_load
        POST  /activations           activate
    ''')

    def authorize(self, req):
        # Loopback tooling for tests and what-if runs; no keystone.
        pass

    def activate(self, req, version):
        """A guest's activation endpoint (guests.py)."""
        status, _record = self.sim.activations.receive(
            req.body, req.headers.get('X-Watcher-HA-Delivery'),
            req.headers.get('X-Watcher-HA-Signature'))
        if status >= 400:
            raise web.Reply(status, {401: 'bad signature', 503:
                                     'the agent is restarting'}[status])
        return status, None

    def state(self, req, version):
        cloud = self.cloud
        return 200, {
            'hosts': {h.name: {
                'uuid': h.uuid, 'status': h.status, 'state': h.state,
                'disabled_reason': h.disabled_reason,
                'forced_down': h.forced_down,
                'availability_zone': h.availability_zone,
                'aggregates': sorted(h.aggregates), 'vcpus': h.vcpus,
                'memory_mb': h.memory_mb, 'disk_gb': h.disk_gb,
                'used': cloud.used(h.name), 'powered_on': h.powered_on,
                'compute_running': h.compute_running,
                'partitioned': h.partitioned, 'reporting': h.reporting}
                for h in cloud.hosts.values()},
            'servers': {s.uuid: {
                'name': s.name, 'host': s.host, 'vm_state': s.vm_state,
                'task_state': s.task_state, 'flavor': s.flavor.name,
                'needs': s.needs(),
                'locked': s.locked, 'metadata': dict(s.metadata),
                'evacuating_to': s.evacuating_to,
                'left_on': list(s.left_on),
                'guest_running': hosts.guest_running(
                    cloud.hosts[s.host], s) if s.host else False}
                for s in cloud.servers.values()},
            # Nova's records of the live migrations, to the microsecond
            # (os-migrations gives seconds): when each was asked for,
            # began (off its source's queue) and ended.
            'live_migrations': [{
                'id': m.id, 'server': m.server_uuid, 'source': m.source,
                'dest': m.dest, 'status': m.status,
                'created_at': _iso(m.created_at),
                'started_at': _iso(m.started_at),
                'updated_at': _iso(m.updated_at)}
                for m in list(cloud.migrations.values())
                if m.kind == 'live-migration'],
            # Cinder's: every volume migration and retype asked for, and
            # where each volume is.
            'volume_migrations': [{
                'id': m.id, 'volume': m.volume_id, 'kind': m.kind,
                'source': m.source, 'dest': m.dest, 'status': m.status,
                'old_type': m.old_type, 'new_type': m.new_type,
                'reason': m.reason, 'created_at': _iso(m.created_at),
                'updated_at': _iso(m.updated_at)}
                for m in list(cloud.storage.moves)] if cloud.storage else [],
            'volumes': {v.id: {
                'name': v.name, 'size': v.size, 'status': v.status,
                'pool': v.pool, 'type': v.type_id,
                'migration_status': v.migration_status,
                'attached_to': [a.server_uuid for a in v.attachments],
                'writers': cloud.storage.writers(v.id)}
                for v in list(cloud.storage.volumes.values())}
            if cloud.storage else {},
            'shared_writes': list(cloud.storage.shared_writes)
            if cloud.storage else [],
            # Every attachment Cinder completed, in order.
            'attaches': list(cloud.storage.attaches)
            if cloud.storage else [],
            'split_brain': list(cloud.split_brain),
            # Calls of nova-api that no nova-compute answered (each held
            # its request for rpc_response_timeout).
            'rpc_timeouts': list(cloud.rpc_timeouts),
            'notifications_sent': getattr(self.sim.notifier, 'sent', 0),
            # Heat's stacks: their state, the updates each accepted, and
            # every signal each resource received.
            'stacks': heat_state.stacks(self.sim.heat),
            # Every delivery the guests' activation endpoint received.
            'activations': self.sim.activations.state()}

    def get_faults(self, req, version):
        return 200, self.sim.faults.state()

    def set_faults(self, req, version):
        try:
            self.sim.faults.configure(web.body_of(req))
        except (ValueError, TypeError, KeyError) as err:
            raise web.Reply(400, 'Bad fault description: %s' % err)
        return 200, self.sim.faults.state()

    def host_event(self, req, version, name, event):
        happen = HOST_EVENTS.get(event)
        if happen is None:
            raise web.Reply(404, 'No host event %s; known: %s'
                            % (event, ', '.join(sorted(HOST_EVENTS))))
        happen(self.cloud, name)
        return 202, None

    def set_load(self, req, version, uuid):
        """The server's load from now on: {profile, cpu, seed} as in a
        scenario (what is left out stays as it was)."""
        load = web.body_of(req)
        unknown = set(load) - {'profile', 'cpu', 'seed'}
        if unknown:
            raise web.Reply(400, 'A load has a profile, cpu and seed; '
                                 'unknown: %s' % ', '.join(sorted(unknown)))
        if load.get('profile', 'steady') not in scenario.PROFILES:
            raise web.Reply(400, 'profile must be one of %s'
                            % ', '.join(scenario.PROFILES))
        cpu = load.get('cpu', 0.0)
        if (not isinstance(cpu, numbers.Real) or isinstance(cpu, bool)
                or not 0.0 <= cpu <= 1.0):
            raise web.Reply(400, 'cpu is the share of its vcpus a server '
                                 'uses, from 0 to 1; got %r' % (cpu,))
        with self.cloud.lock:
            server = self.cloud.servers.get(uuid)
            if server is None:
                raise web.Reply(404, 'No server %s' % uuid)
            server.load = {**server.load, **load}
            return 200, dict(server.load)
