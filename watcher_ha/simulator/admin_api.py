"""The simulator's own API (``/simulator``): its state, and faults to
inject (host failures, failing migrations, failing or slow calls, lost or
late notifications)."""

from watcher_ha.simulator import web


class AdminAPI(web.Service):
    prefix = '/simulator'
    routes = (
        ('GET', '/state', 'state'),
        ('GET', '/faults', 'get_faults'),
        ('PUT', '/faults', 'set_faults'),
        ('POST', '/hosts/{name}/fail', 'fail_host'),
        ('POST', '/hosts/{name}/recover', 'recover_host'),
    )

    def authorize(self, req):
        # Loopback tooling for tests and what-if runs; no keystone.
        pass

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
                'used': cloud.used(h.name)}
                for h in cloud.hosts.values()},
            'servers': {s.uuid: {
                'name': s.name, 'host': s.host, 'vm_state': s.vm_state,
                'task_state': s.task_state, 'flavor': s.flavor.name,
                'needs': s.flavor.needs(),
                'locked': s.locked, 'metadata': dict(s.metadata)}
                for s in cloud.servers.values()},
            'notifications_sent': getattr(self.sim.notifier, 'sent', 0)}

    def get_faults(self, req, version):
        return 200, self.sim.faults.state()

    def set_faults(self, req, version):
        try:
            self.sim.faults.configure(web.body_of(req))
        except (ValueError, TypeError, KeyError) as err:
            raise web.Reply(400, 'Bad fault description: %s' % err)
        return 200, self.sim.faults.state()

    def fail_host(self, req, version, name):
        self.cloud.fail_host(name, True)
        return 202, None

    def recover_host(self, req, version, name):
        self.cloud.fail_host(name, False)
        return 202, None
