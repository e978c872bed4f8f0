"""The Compute API's view of the hosts: their compute services
(os-services, changed as nova-api changes them), hypervisors, availability
zones and aggregates."""

import uuid as uuidlib

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import aggregates
from watcher_ha.simulator.nova import api_base
from watcher_ha.simulator.nova.api_base import api_time


class HostsAPI(api_base.ComputeService):

    # Services.

    def _service_view(self, host, version):
        ident = host.service_id if version >= (2, 53) \
            else host.hypervisor_id
        return {'id': ident, 'binary': 'nova-compute', 'host': host.name,
                'zone': host.availability_zone, 'status': host.status,
                'state': host.state,
                'updated_at': api_time(host.updated_at or host.created_at),
                'disabled_reason': host.disabled_reason,
                'forced_down': host.forced_down}

    def list_services(self, req, version):
        params = req.GET
        hosts = [h for h in self.cloud.hosts.values()
                 if params.get('host', h.name) == h.name]
        if params.get('binary', 'nova-compute') != 'nova-compute':
            hosts = []
        return 200, {'services': [self._service_view(h, version)
                                  for h in hosts]}

    def update_service(self, req, version, ident):
        body = web.body_of(req)
        if not version >= (2, 53):
            return self._legacy_service_update(req, version, ident, body)
        status = body.get('status')
        if status not in (None, 'enabled', 'disabled'):
            raise web.Reply(400, "Invalid input for field/attribute status."
                                 " Value: %s. 'enabled' or 'disabled' "
                                 "expected" % status)
        forced = body.get('forced_down')
        if forced is not None:
            forced = self._boolean('forced_down', forced)
        try:
            uuidlib.UUID(ident)
        except ValueError:
            raise web.Reply(400, 'Invalid uuid %s' % ident)
        host = self._host_by_service(ident)
        if status == 'enabled' and body.get('disabled_reason'):
            raise web.Reply(400, "Specifying 'disabled_reason' with status "
                                 "'enabled' is invalid.")
        if status is None and forced is None:
            raise web.Reply(400, "No updates were requested. Fields "
                                 "'status' or 'forced_down' should be "
                                 "specified.")
        _host, wait = self.cloud.update_service(
            host.name, status, body.get('disabled_reason'), forced)
        web.hold_reply(req, wait)
        return 200, {'service': self._service_view(host, version)}

    def _host_by_service(self, ident):
        for host in self.cloud.hosts.values():
            if host.service_id == ident:
                return host
        raise web.Reply(404, 'Service %s could not be found.' % ident)

    def _legacy_service_update(self, req, version, action, body):
        host = self.cloud.host(body.get('host', ''))
        if action == 'enable':
            _host, wait = self.cloud.update_service(host.name, 'enabled')
            web.hold_reply(req, wait)
        elif action in ('disable', 'disable-log-reason'):
            _host, wait = self.cloud.update_service(
                host.name, 'disabled', body.get('disabled_reason'))
            web.hold_reply(req, wait)
        elif action == 'force-down' and version >= (2, 11):
            if 'forced_down' not in body:
                raise web.Reply(400, 'Missing forced_down field')
            self.cloud.update_service(host.name, forced_down=self._boolean(
                'forced_down', body['forced_down']))
        else:
            raise web.Reply(404, 'Unknown action')
        return 200, {'service': {'host': host.name,
                                 'binary': 'nova-compute',
                                 'status': host.status,
                                 'disabled_reason': host.disabled_reason,
                                 'forced_down': host.forced_down}}

    # Hypervisors.

    def _hypervisor_view(self, req, host, version, detail):
        ident = host.uuid if version >= (2, 53) else host.hypervisor_id
        view = {'id': ident, 'hypervisor_hostname': host.name,
                'state': host.state, 'status': host.status}
        if detail:
            view.update({
                'hypervisor_type': 'fake', 'hypervisor_version': 1000,
                'host_ip': '192.168.0.1',
                'service': {'host': host.name, 'id': (
                    host.service_id if version >= (2, 53)
                    else host.hypervisor_id),
                    'disabled_reason': host.disabled_reason}})
            if not version >= (2, 88):
                used = self.cloud.used(host.name)
                view.update({
                    'vcpus': host.vcpus, 'memory_mb': host.memory_mb,
                    'local_gb': host.disk_gb, 'vcpus_used': used['vcpus'],
                    'memory_mb_used': used['memory_mb'],
                    'local_gb_used': used['disk_gb'],
                    'free_ram_mb': host.memory_mb - used['memory_mb'],
                    'free_disk_gb': host.disk_gb - used['disk_gb'],
                    'running_vms': len(self.cloud.servers_on(host.name)),
                    'current_workload': 0, 'disk_available_least': 0,
                    'cpu_info': '{}'})
            else:
                view['uptime'] = None
        if req.GET.get('with_servers', '').lower() in ('true', '1', 'yes'):
            view['servers'] = [{'uuid': s.uuid, 'name': s.name}
                               for s in self.cloud.servers_on(host.name)]
        return view

    def _hypervisors(self, req, version, detail):
        pattern = req.GET.get('hypervisor_hostname_pattern')
        hosts = sorted(self.cloud.hosts.values(),
                       key=lambda h: h.hypervisor_id)
        if pattern:
            hosts = [h for h in hosts if pattern in h.name]
            if not hosts:
                raise web.Reply(404, 'No hypervisor matching %s could be '
                                     'found.' % pattern)
        page, links = self._page(
            req, hosts, lambda h: (h.uuid if version >= (2, 53)
                                   else str(h.hypervisor_id)),
            'os-hypervisors')
        body = {'hypervisors': [self._hypervisor_view(req, h, version,
                                                      detail)
                                for h in page]}
        if links:
            body['hypervisors_links'] = links
        return 200, body

    def list_hypervisors(self, req, version):
        return self._hypervisors(req, version, False)

    def list_hypervisors_detail(self, req, version):
        return self._hypervisors(req, version, True)

    def search_hypervisors(self, req, version, ident):
        if version >= (2, 53):
            raise web.Reply(404, 'The resource could not be found.')
        hosts = [h for h in self.cloud.hosts.values() if ident in h.name]
        if not hosts:
            raise web.Reply(404, 'No hypervisor matching %s could be found.'
                            % ident)
        return 200, {'hypervisors': [self._hypervisor_view(req, h, version,
                                                           False)
                                     for h in hosts]}

    def show_hypervisor(self, req, version, ident):
        for host in self.cloud.hosts.values():
            if ident in (host.uuid, str(host.hypervisor_id)):
                return 200, {'hypervisor': self._hypervisor_view(
                    req, host, version, True)}
        raise web.Reply(404, 'Hypervisor %s could not be found.' % ident)

    # Availability zones and aggregates.

    def _zones(self):
        zones = {}
        for host in self.cloud.hosts.values():
            zones.setdefault(host.availability_zone, []).append(host)
        return zones

    def list_zones(self, req, version):
        return 200, {'availabilityZoneInfo': [
            {'zoneName': zone, 'zoneState': {'available': True},
             'hosts': None} for zone in sorted(self._zones())]}

    def list_zones_detail(self, req, version):
        return 200, {'availabilityZoneInfo': [
            {'zoneName': zone, 'zoneState': {'available': True},
             'hosts': {h.name: {'nova-compute': {
                 'available': h.state == 'up',
                 'active': h.status == 'enabled',
                 'updated_at': api_time(h.updated_at or h.created_at)}}
                 for h in hosts}}
            for zone, hosts in sorted(self._zones().items())]}

    def list_aggregates(self, req, version):
        return 200, {'aggregates': [
            aggregates.view(self.cloud, aggregate) for aggregate in sorted(
                self.cloud.aggregates.values(), key=lambda a: a.id)]}

    def show_aggregate(self, req, version, ident):
        return 200, {'aggregate': aggregates.view(
            self.cloud, aggregates.find(self.cloud, ident))}

    def aggregate_action(self, req, version, ident):
        body = web.body_of(req)
        changes = {'add_host': aggregates.add_host,
                   'remove_host': aggregates.remove_host}
        if len(body) != 1 or next(iter(body)) not in changes:
            raise web.Reply(400, 'Invalid input for field/attribute '
                                 'aggregate action: one of add_host, '
                                 'remove_host is required.')
        [(action, args)] = body.items()
        if not isinstance(args, dict) or not isinstance(args.get('host'),
                                                         str):
            raise web.Reply(400, "Invalid input for field/attribute %s. "
                                 "'host' is a required property." % action)
        return 200, {'aggregate': changes[action](self.cloud, ident,
                                                  args['host'])}
