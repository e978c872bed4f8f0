"""The Compute API v2.1 subset, with Nova's JSON shapes and codes."""

import hashlib
import secrets
import uuid as uuidlib

from watcher_ha.simulator import web
from watcher_ha.simulator.nova import aggregates
from watcher_ha.simulator.nova import evacuation
from watcher_ha.simulator.nova import server_groups

# Nova's [api] max_limit: the most items a page holds; a scenario's
# ``max_limit`` sets another.
MAX_LIMIT = 1000
# Nova's server list filters: query parameter, test of a server.
SERVER_FILTERS = {
    'host': lambda server, value: server.host == value,
    'node': lambda server, value: server.host == value,
    'name': lambda server, value: value in server.name,
    'status': lambda server, value: server.status == value.upper(),
    'project_id': lambda server, value: server.tenant_id == value,
}
POWER_STATE_CODES = {'active': 1, 'stopped': 4, 'paused': 3,
                     'suspended': 7}
# Nova's parameter_types.boolean.
BOOLEANS = {True: True, False: False}
BOOLEANS.update({word: True for word in ('True', 'TRUE', 'true', '1', 'ON',
                                         'On', 'on', 'YES', 'Yes', 'yes')})
BOOLEANS.update({word: False for word in ('False', 'FALSE', 'false', '0',
                                          'OFF', 'Off', 'off', 'NO', 'No',
                                          'no')})


def _time(value):
    return None if value is None else value.strftime('%Y-%m-%dT%H:%M:%SZ')


def _root_volume(spec):
    """The volume a server to create boots from, by its block device
    mapping (boot index 0 on a volume): an existing volume's id, or a new
    one for an image or a blank copied into a volume; None when it boots
    from its image."""
    for mapping in spec.get('block_device_mapping_v2') or ():
        if (isinstance(mapping, dict)
                and str(mapping.get('boot_index')) == '0'
                and mapping.get('destination_type') == 'volume'):
            if mapping.get('source_type') == 'volume':
                return mapping.get('uuid') or str(uuidlib.uuid4())
            return str(uuidlib.uuid4())
    return None


class ComputeAPI(web.Service):
    prefix = '/compute/v2.1'
    microversions = web.Versions('compute', '2.1', '2.96',
                            legacy_header='X-OpenStack-Nova-API-Version')
    routes = (
        ('GET', '', 'version'), ('GET', '/', 'version'),
        ('GET', '/servers', 'list_servers'),
        ('GET', '/servers/detail', 'list_servers_detail'),
        ('GET', '/servers/{uuid}', 'show_server'),
        ('GET', '/servers/{uuid}/migrations', 'list_server_migrations'),
        ('DELETE', '/servers/{uuid}/migrations/{ident}',
         'abort_server_migration'),
        ('POST', '/servers', 'create_server'),
        ('DELETE', '/servers/{uuid}', 'delete_server'),
        ('POST', '/servers/{uuid}/action', 'server_action'),
        ('GET', '/os-migrations', 'list_migrations'),
        ('GET', '/os-services', 'list_services'),
        ('PUT', '/os-services/{ident}', 'update_service'),
        ('GET', '/os-hypervisors', 'list_hypervisors'),
        ('GET', '/os-hypervisors/detail', 'list_hypervisors_detail'),
        ('GET', '/os-hypervisors/{ident}/search', 'search_hypervisors'),
        ('GET', '/os-hypervisors/{ident}', 'show_hypervisor'),
        ('GET', '/flavors', 'list_flavors'),
        ('GET', '/flavors/detail', 'list_flavors_detail'),
        ('GET', '/flavors/{ident}', 'show_flavor'),
        ('GET', '/flavors/{ident}/os-extra_specs', 'flavor_extra_specs'),
        ('GET', '/os-availability-zone', 'list_zones'),
        ('GET', '/os-availability-zone/detail', 'list_zones_detail'),
        ('GET', '/os-aggregates', 'list_aggregates'),
        ('GET', '/os-aggregates/{ident}', 'show_aggregate'),
        ('POST', '/os-aggregates/{ident}/action', 'aggregate_action'),
        ('GET', '/os-server-groups', 'list_server_groups'),
        ('POST', '/os-server-groups', 'create_server_group'),
        ('GET', '/os-server-groups/{ident}', 'show_server_group'),
        ('DELETE', '/os-server-groups/{ident}', 'delete_server_group'),
    )

    def _url(self, req, *parts):
        return '/'.join([req.host_url + self.prefix] + list(parts))

    def version(self, req, version):
        return 200, {'version': {
            'id': 'v2.1', 'status': 'CURRENT',
            'version': str(self.microversions.maximum),
            'min_version': '2.1', 'updated': '2013-07-23T11:33:21Z',
            'links': [{'rel': 'self', 'href': self._url(req) + '/'}],
            'media-types': [{'base': 'application/json',
                             'type': 'application/vnd.openstack.compute+'
                                     'json;version=2.1'}]}}

    # Servers.

    def _server_view(self, req, server, version, detail):
        href = self._url(req, 'servers', server.uuid)
        links = [{'rel': 'self', 'href': href},
                 {'rel': 'bookmark', 'href': href}]
        if not detail:
            return {'id': server.uuid, 'name': server.name, 'links': links}
        flavor = server.flavor
        view = {
            'id': server.uuid, 'name': server.name, 'status': server.status,
            'tenant_id': server.tenant_id, 'user_id': server.user_id,
            'metadata': dict(server.metadata),
            'hostId': hashlib.sha224((server.tenant_id + (server.host or ''))
                                     .encode()).hexdigest()
            if server.host else '',
            # Nova shows no image for a server booted from a volume.
            'image': ('' if server.root_volume else
                      {'id': server.image_uuid, 'links': []}),
            'flavor': {'vcpus': flavor.vcpus, 'ram': flavor.ram,
                       'disk': flavor.disk, 'ephemeral': flavor.ephemeral,
                       'swap': flavor.swap, 'original_name': flavor.name,
                       'extra_specs': dict(flavor.extra_specs)},
            'created': _time(server.created_at),
            'updated': _time(server.updated_at or server.created_at),
            'addresses': {}, 'accessIPv4': '', 'accessIPv6': '',
            'links': links, 'OS-DCF:diskConfig': 'MANUAL', 'progress': 0,
            'OS-EXT-AZ:availability_zone': server.availability_zone or '',
            'config_drive': '', 'key_name': server.key_name,
            'OS-SRV-USG:launched_at': _time(server.launched_at),
            'OS-SRV-USG:terminated_at': None,
            'OS-EXT-SRV-ATTR:host': server.host,
            'OS-EXT-SRV-ATTR:instance_name': 'instance-%s'
                                             % server.uuid[:8],
            'OS-EXT-SRV-ATTR:hypervisor_hostname': server.host,
            'OS-EXT-STS:task_state': server.task_state,
            'OS-EXT-STS:vm_state': server.vm_state,
            'OS-EXT-STS:power_state': server.power_state,
            'os-extended-volumes:volumes_attached': [
                {'id': server.root_volume, 'delete_on_termination': False}
            ] if server.root_volume else [],
            'security_groups': [{'name': 'default'}],
            'locked': server.locked,
        }
        if server.vm_state == 'error' and server.fault:
            view['fault'] = dict(server.fault,
                                 created=_time(server.fault['created']))
        if version >= (2, 73):
            view['locked_reason'] = server.locked_reason
        if version >= (2, 96):
            view['pinned_availability_zone'] = \
                server.pinned_availability_zone
        return view

    def _servers_page(self, req):
        """A page of the servers the query's filters select, newest first
        (Nova's default sort), from just after the marker; like Nova, a
        marker may name a deleted server. Each page costs what it holds,
        not what the cloud holds: a full listing pages through 50,000
        servers."""
        limit = self._limit(req)
        params = req.GET
        tests = [(test, params[name])
                 for name, test in SERVER_FILTERS.items() if name in params]
        order, servers = self.cloud.order, self.cloud.servers
        marker = params.get('marker')
        end = len(order)
        if marker is not None:
            try:
                end = order.index(marker)
            except ValueError:
                raise web.Reply(400, 'marker [%s] not found' % marker)
        page = []
        for position in range(end - 1, -1, -1):
            if len(page) == limit:
                break
            server = servers.get(order[position])
            if server is not None and all(test(server, value)
                                          for test, value in tests):
                page.append(server)
        return page, self._next_links(req, 'servers', limit, page)

    def _limit(self, req):
        max_limit = int(self.sim.spec.get('max_limit', MAX_LIMIT))
        try:
            limit = int(req.GET.get('limit', max_limit))
        except ValueError:
            raise web.Reply(400, 'Invalid input for query parameters limit.')
        if limit < 0:
            raise web.Reply(400, 'Invalid input for query parameters limit.')
        return min(limit, max_limit)

    def _next_links(self, req, collection, limit, page, key=None):
        """Nova's next link: there is one whenever a page is full, even
        the last (the page after it is then empty), so a client pages
        until it gets an empty or short page."""
        if not page or len(page) < limit:
            return []
        marker = key(page[-1]) if key else page[-1].uuid
        query = dict(req.GET)
        query.update(limit=limit, marker=marker)
        return [{'rel': 'next', 'href': '%s?%s' % (
            self._url(req, collection), '&'.join(
                '%s=%s' % item for item in sorted(query.items())))}]

    def _page(self, req, items, key, collection):
        """Nova's marker/limit paging of ``items``, with a next link."""
        limit = self._limit(req)
        marker = req.GET.get('marker')
        start = 0
        if marker is not None:
            positions = [index for index, item in enumerate(items)
                         if key(item) == marker]
            if not positions:
                raise web.Reply(400, 'marker [%s] not found' % marker)
            start = positions[0] + 1
        page = items[start:start + limit]
        return page, self._next_links(req, collection, limit, page, key)

    def list_servers(self, req, version, detail=False):
        servers, links = self._servers_page(req)
        body = {'servers': [self._server_view(req, s, version, detail)
                            for s in servers]}
        if links:
            body['servers_links'] = links
        return 200, body

    def list_servers_detail(self, req, version):
        return self.list_servers(req, version, detail=True)

    def show_server(self, req, version, uuid):
        return 200, {'server': self._server_view(
            req, self.cloud.server(uuid), version, True)}

    def create_server(self, req, version):
        spec = web.body_of(req).get('server')
        if not isinstance(spec, dict) or 'name' not in spec \
                or 'flavorRef' not in spec:
            raise web.Reply(400, "Invalid input for field/attribute server. "
                                 "'name' and 'flavorRef' are required.")
        zone, host = spec.get('availability_zone'), None
        if zone and ':' in zone:
            zone, host = zone.split(':', 1)
        hints = web.body_of(req).get('os:scheduler_hints') or {}
        group = hints.get('group') if isinstance(hints, dict) else None
        if group is not None and group not in self.cloud.server_groups:
            raise web.Reply(400, 'Invalid input for field/attribute group. '
                                 'Value: %s. Instance group %s could not be '
                                 'found.' % (group, group))
        server = self.cloud.create_server(
            spec['name'], spec['flavorRef'], zone=zone or None,
            metadata=spec.get('metadata'), key_name=spec.get('key_name'),
            host=spec.get('host') or host,
            root_volume=_root_volume(spec), group=group)
        return 202, {'server': {
            'id': server.uuid, 'links': [], 'OS-DCF:diskConfig': 'MANUAL',
            'security_groups': [{'name': 'default'}],
            'adminPass': 'simulated'}}

    def delete_server(self, req, version, uuid):
        self.cloud.delete_server(uuid)
        return 204, None

    def server_action(self, req, version, uuid):
        body = web.body_of(req)
        if len(body) != 1:
            raise web.Reply(400, 'There is either no action or more than '
                                 'one action in the request body.')
        [(action, args)] = body.items()
        args = args if isinstance(args, dict) else {}
        cloud = self.cloud
        if action == 'os-migrateLive':
            if 'host' not in args or 'block_migration' not in args:
                raise web.Reply(400, "Invalid input for field/attribute "
                                     "os-migrateLive: 'host' and "
                                     "'block_migration' are required.")
            cloud.live_migrate(uuid, args.get('host'),
                               args.get('block_migration'),
                               async_=version >= (2, 34))
        elif action == 'migrate':
            cloud.cold_migrate(uuid, host=args.get('host'))
        elif action == 'resize':
            if 'flavorRef' not in args:
                raise web.Reply(400, "Invalid input for field/attribute "
                                     "resize: 'flavorRef' is required.")
            cloud.cold_migrate(uuid, flavor=args['flavorRef'])
        elif action == 'confirmResize':
            cloud.confirm_resize(uuid)
            return 204, None
        elif action == 'revertResize':
            cloud.revert_resize(uuid)
        elif action == 'evacuate':
            return 200, self._evacuate(version, uuid, args)
        elif action in ('os-stop', 'os-start'):
            cloud.power(uuid, on=action == 'os-start')
        elif action in ('pause', 'unpause'):
            cloud.pause(uuid, action == 'pause')
        elif action in ('suspend', 'resume'):
            cloud.suspend(uuid, action == 'suspend')
        elif action == 'os-resetState':
            if args.get('state') not in ('active', 'error') or set(
                    args) != {'state'}:
                raise web.Reply(400, "Invalid input for field/attribute "
                                     "state. Value: %s. %r is not one of "
                                     "['active', 'error']" % (
                                         args.get('state'),
                                         args.get('state')))
            cloud.reset_state(uuid, args['state'])
        elif action == 'shelve':
            cloud.shelve(uuid)
        elif action == 'unshelve':
            cloud.unshelve(uuid)
        elif action in ('lock', 'unlock'):
            cloud.lock_server(uuid, action == 'lock',
                              args.get('locked_reason'))
        else:
            raise web.Reply(400, 'There is no such action: %s' % action)
        return 202, None

    def _evacuate(self, version, uuid, args):
        """Nova's evacuate body by microversion: ``onSharedStorage``
        required before 2.14 (which answers an adminPass), ``force`` from
        2.29 to 2.67; a host given before 2.29 bypasses the scheduler;
        from 2.95 the server ends stopped."""
        allowed = {'host', 'adminPass'}
        if version < (2, 14):
            allowed.add('onSharedStorage')
        elif (2, 29) <= version < (2, 68):
            allowed.add('force')
        unexpected = sorted(set(args) - allowed)
        if unexpected:
            raise web.Reply(400, 'Invalid input for field/attribute '
                                 'evacuate. Additional properties are not '
                                 'allowed (%s was unexpected)'
                            % ', '.join(repr(k) for k in unexpected))
        if version < (2, 14) and 'onSharedStorage' not in args:
            raise web.Reply(400, "Invalid input for field/attribute "
                                 "evacuate. 'onSharedStorage' is a required "
                                 "property")
        shared = self._boolean('onSharedStorage',
                               args.get('onSharedStorage', False))
        force = self._boolean('force', args.get('force', False))
        host = args.get('host')
        if force and not host:
            raise web.Reply(400, "Can't force to a non-provided destination")
        if version < (2, 14) and shared and 'adminPass' in args:
            raise web.Reply(400, "admin password can't be changed on "
                                 "existing disk")
        evacuation.evacuate(self.cloud, uuid, host=host,
                            force=bool(host) and (version < (2, 29)
                                                  or force),
                            stop=version >= (2, 95))
        if version >= (2, 14):
            return None
        return {'adminPass': args.get('adminPass') or (
            None if shared else secrets.token_urlsafe(9))}

    @staticmethod
    def _boolean(name, value):
        try:
            return BOOLEANS[value]
        except (KeyError, TypeError):
            raise web.Reply(400, 'Invalid input for field/attribute %s. '
                                 'Value: %s. %r is not one of the '
                                 'booleans' % (name, value, value))

    def list_server_migrations(self, req, version, uuid):
        """A server's live migrations under way (2.23)."""
        if version < (2, 23):
            raise web.Reply(404, 'The resource could not be found.')
        return 200, {'migrations': [{
            'id': m.id, 'uuid': m.uuid, 'server_uuid': m.server_uuid,
            'source_compute': m.source, 'source_node': m.source,
            'dest_compute': m.dest, 'dest_node': m.dest, 'dest_host': None,
            'status': m.status,
            'memory_total_bytes': m.memory_total_bytes,
            'memory_processed_bytes': m.memory_processed_bytes,
            'memory_remaining_bytes': (m.memory_total_bytes
                                       - m.memory_processed_bytes),
            'disk_total_bytes': 0, 'disk_processed_bytes': 0,
            'disk_remaining_bytes': 0,
            'created_at': _time(m.created_at),
            'updated_at': _time(m.updated_at)}
            for m in self.cloud.live_migrations_of(uuid)]}

    def abort_server_migration(self, req, version, uuid, ident):
        """Abort a live migration under way (2.24); a queued one too from
        2.65."""
        if version < (2, 24):
            raise web.Reply(404, 'The resource could not be found.')
        try:
            migration_id = int(ident)
        except ValueError:
            raise web.Reply(400, 'Invalid migration id %s: it must be an '
                                 'integer' % ident)
        self.cloud.abort_live_migration(uuid, migration_id,
                                        queued_too=version >= (2, 65))
        return 202, None

    def list_migrations(self, req, version):
        params = req.GET
        found = []
        for migration in sorted(self.cloud.migrations.values(),
                                key=lambda m: -m.id):
            if ('instance_uuid' in params
                    and migration.server_uuid != params['instance_uuid']):
                continue
            if 'host' in params and params['host'] not in (
                    migration.source, migration.dest):
                continue
            if 'status' in params and migration.status != params['status']:
                continue
            if ('migration_type' in params
                    and migration.kind != params['migration_type']):
                continue
            found.append({
                'id': migration.id, 'uuid': migration.uuid,
                'instance_uuid': migration.server_uuid,
                'source_compute': migration.source,
                'source_node': migration.source,
                'dest_compute': migration.dest, 'dest_node': migration.dest,
                'dest_host': None, 'status': migration.status,
                'migration_type': migration.kind,
                'old_instance_type_id': migration.old_flavor_id,
                'new_instance_type_id': migration.new_flavor_id,
                'created_at': _time(migration.created_at),
                'updated_at': _time(migration.updated_at),
                'links': []})
        return 200, {'migrations': found}

    # Services.

    def _service_view(self, host, version):
        ident = host.service_id if version >= (2, 53) \
            else host.hypervisor_id
        return {'id': ident, 'binary': 'nova-compute', 'host': host.name,
                'zone': host.availability_zone, 'status': host.status,
                'state': host.state,
                'updated_at': _time(host.updated_at or host.created_at),
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

    # Flavors, zones, aggregates.

    def _flavor_view(self, req, flavor, version, detail):
        view = {'id': flavor.id, 'name': flavor.name, 'links': [],
                'description': None}
        if detail:
            view.update({'vcpus': flavor.vcpus, 'ram': flavor.ram,
                         'disk': flavor.disk,
                         'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral,
                         'swap': flavor.swap or '', 'rxtx_factor': 1.0,
                         'os-flavor-access:is_public': True,
                         'OS-FLV-DISABLED:disabled': False})
            if version >= (2, 61):
                view['extra_specs'] = dict(flavor.extra_specs)
        return view

    def list_flavors(self, req, version, detail=False):
        return 200, {'flavors': [
            self._flavor_view(req, f, version, detail)
            for f in sorted(self.cloud.flavors.values(),
                            key=lambda f: f.id)]}

    def list_flavors_detail(self, req, version):
        return self.list_flavors(req, version, detail=True)

    def show_flavor(self, req, version, ident):
        return 200, {'flavor': self._flavor_view(
            req, self.cloud.flavor(ident), version, True)}

    def flavor_extra_specs(self, req, version, ident):
        return 200, {'extra_specs': dict(self.cloud.flavor(
            ident).extra_specs)}

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
                 'updated_at': _time(h.updated_at or h.created_at)}}
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

    # Server groups.

    @staticmethod
    def _server_group_view(group, version):
        view = {'id': group.id, 'name': group.name,
                'members': list(group.members)}
        if version >= (2, 64):
            view.update(policy=group.policy, rules=dict(group.rules))
        else:
            view.update(policies=[group.policy], metadata={})
        if version >= (2, 13):
            view.update(project_id=group.project_id, user_id=group.user_id)
        return view

    def list_server_groups(self, req, version):
        everyone = self._boolean('all_projects',
                                 req.GET.get('all_projects', False))
        groups = [g for g in self.cloud.server_groups.values()
                  if everyone or g.project_id == 'admin-project']
        try:
            offset = int(req.GET.get('offset', 0))
        except ValueError:
            raise web.Reply(400, 'Invalid input for query parameters '
                                 'offset.')
        groups = groups[offset:offset + self._limit(req)]
        return 200, {'server_groups': [self._server_group_view(g, version)
                                       for g in groups]}

    def show_server_group(self, req, version, ident):
        return 200, {'server_group': self._server_group_view(
            server_groups.get(self.cloud, ident), version)}

    def delete_server_group(self, req, version, ident):
        server_groups.delete(self.cloud, ident)
        return 204, None

    def create_server_group(self, req, version):
        spec = web.body_of(req).get('server_group')
        if not isinstance(spec, dict) or not spec.get('name'):
            raise web.Reply(400, "Invalid input for field/attribute "
                                 "server_group. 'name' is a required "
                                 "property")
        if version >= (2, 64):
            policy, rules = spec.get('policy'), spec.get('rules') or {}
            allowed = {'name', 'policy', 'rules'}
        else:
            policies = spec.get('policies')
            policy = (policies[0] if isinstance(policies, list)
                      and len(policies) == 1 else None)
            rules, allowed = {}, {'name', 'policies'}
        unexpected = sorted(set(spec) - allowed)
        if unexpected:
            raise web.Reply(400, 'Invalid input for field/attribute '
                                 'server_group. Additional properties are '
                                 'not allowed (%s was unexpected)'
                            % ', '.join(repr(k) for k in unexpected))
        if policy not in server_groups.POLICIES:
            raise web.Reply(400, 'Invalid input for field/attribute policy. '
                                 'Value: %s. %r is not one of %s'
                            % (policy, policy,
                               list(server_groups.POLICIES)))
        self._check_rules(policy, rules)
        group = server_groups.create(self.cloud, spec['name'], policy, rules)
        return 200, {'server_group': self._server_group_view(group,
                                                             version)}

    @staticmethod
    def _check_rules(policy, rules):
        if not isinstance(rules, dict) or set(rules) - {
                'max_server_per_host'}:
            raise web.Reply(400, 'Invalid input for field/attribute rules. '
                                 'Only max_server_per_host is allowed.')
        if rules and policy != 'anti-affinity':
            raise web.Reply(400, 'Invalid input for field/attribute '
                                 'policy. Only anti-affinity policy '
                                 'supports rules.')
        limit = rules.get('max_server_per_host', 1)
        if (isinstance(limit, bool) or not str(limit).isdigit()
                or int(limit) < 1):
            raise web.Reply(400, 'Invalid input for field/attribute '
                                 'max_server_per_host. Value: %s. It must '
                                 'be a positive integer.' % limit)
        if rules:
            rules['max_server_per_host'] = int(limit)
